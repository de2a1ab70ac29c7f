// Texts for the focus tests, written from the topic web's vocabularies (test-web/topic-words.ts):
// pages about beekeeping, pages on other subjects, and decoys that use the topic's words in another sense.
import { pageText } from '../../test-web/sites-topic.js';
import { DECOY_SENSES, DECOYS, GENERAL, TOPIC } from '../../test-web/topic-words.js';

const join = (paragraphs: string[]) => paragraphs.join('\n\n');

export const topicText = (seed: string, words = 260) => join(pageText(`topic:${seed}`, TOPIC, words));
export const generalText = (seed: string, subject = 'sport', words = 260) => join(pageText(`general:${seed}`, GENERAL[subject], words));
export const decoyText = (seed: string, decoy: keyof typeof DECOYS = 'honeyfood', words = 260) =>
  join(pageText(`decoy:${seed}`, DECOYS[decoy], words, { extra: DECOY_SENSES[decoy].words, share: DECOY_SENSES[decoy].share }));

/** Six example pages about beekeeping, as a user would collect them. */
export const EXAMPLES = Array.from({ length: 6 }, (_, i) => topicText(`example-${i}`));
