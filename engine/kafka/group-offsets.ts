// Setting a consumer group's positions without joining it. kafkajs's admin.setOffsets joins the group
// with a consumer, pauses it and waits for its first fetch, which the broker answers only after the
// consumer's fetch wait (5 s): ten seconds of every replay's start went there. A group without
// members takes an OffsetCommit with no generation and no member id (what a consumer that assigns
// its own partitions sends); kafkajs's admin has no call for it, so it goes through its cluster.
import type { Admin, Kafka } from 'kafkajs';
import { kafkajsCluster, READ_COMMITTED } from './kafkajs-cluster.js';

const NO_GENERATION = -1;

/** Commits `offsets` (partition → next offset to read) of `topic` for `groupId`, which must have no members. */
export async function setGroupOffsets(kafka: Kafka, admin: Admin, groupId: string, topic: string, offsets: Map<number, number>): Promise<void> {
  // As admin.setOffsets does: the positions of a group whose members are reading would be overwritten
  // under them (and theirs would overwrite these).
  const { groups } = await admin.describeGroups([groupId]);
  const live = groups.find((g) => g.groupId === groupId && g.members.length > 0);
  if (live) throw new Error(`consumer group ${groupId} has ${live.members.length} running member(s) (state ${live.state}): its positions can be set only while nothing reads with it`);
  const cluster = kafkajsCluster(kafka, READ_COMMITTED, 'commit a group\'s offsets without joining it');
  await cluster.connect();
  try {
    const coordinator = await cluster.findGroupCoordinator({ groupId });
    // kafkajs's response parser throws on any partition's error.
    await coordinator.offsetCommit({
      groupId, groupGenerationId: NO_GENERATION, memberId: '', retentionTime: -1,
      topics: [{ topic, partitions: [...offsets].map(([partition, offset]) => ({ partition, offset: String(offset) })) }],
    });
  } finally {
    await cluster.disconnect().catch(() => {});
  }
}
