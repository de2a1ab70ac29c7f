// Options shared by the Kafka-mode commands.
import { listOption, UsageError } from './options.js';

export const KAFKA_FLAGS = {
  brokers: { type: 'string', multiple: true },
  'topic-prefix': { type: 'string' },
} as const;

export function brokersOf(values: Record<string, unknown>): string[] {
  const brokers = listOption(values, 'brokers');
  if (brokers.length === 0) throw new UsageError('--brokers HOST:PORT is required (e.g. from `scripts/dev-services.sh env`)');
  return brokers;
}

export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name] as string | undefined;
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}
