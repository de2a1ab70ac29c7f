// A partition assigner that keeps co-partitioning: a member that gets partition p gets partition p of
// EVERY topic it subscribed to, because the schedule task for hosts in p must read both `deduped` p
// and `fetched` p (kafkajs's round-robin assigner spreads topic-partitions independently and would
// split them). It is sticky: members keep the partitions they held when the group stays balanced,
// so a rebalance moves as few tasks (and their state) as it can.
import { AssignerProtocol, type Assigner, type GroupMember, type GroupMemberAssignment, type PartitionAssigner } from 'kafkajs';

const { MemberMetadata, MemberAssignment } = AssignerProtocol;
export const ASSIGNER_NAME = 'CrawlstreamCoPartitioned';

interface MemberInfo {
  memberId: string;
  previous: number[];
}

/**
 * Pure assignment: partition numbers 0..partitions-1 over members, sticky and balanced
 * (every member holds ⌊P/M⌋ or ⌈P/M⌉ partitions).
 */
export function assignPartitions(members: MemberInfo[], partitions: number): Map<string, number[]> {
  const sorted = [...members].sort((a, b) => a.memberId.localeCompare(b.memberId));
  const result = new Map<string, number[]>(sorted.map((m) => [m.memberId, []]));
  if (sorted.length === 0) return result;
  const floor = Math.floor(partitions / sorted.length);
  let withExtra = partitions % sorted.length; // how many members may hold floor + 1
  const taken = new Set<number>();
  // Keep previous partitions, up to each member's fair share.
  for (const m of sorted) {
    const keep = m.previous.filter((p) => p < partitions && !taken.has(p)).sort((a, b) => a - b);
    let cap = floor;
    if (withExtra > 0 && keep.length > floor) {
      cap = floor + 1;
      withExtra--;
    }
    for (const p of keep.slice(0, cap)) {
      result.get(m.memberId)!.push(p);
      taken.add(p);
    }
  }
  const free = [];
  for (let p = 0; p < partitions; p++) if (!taken.has(p)) free.push(p);
  for (const p of free) {
    // Give each free partition to the member with the fewest that may still take one.
    let best: string | undefined;
    for (const m of sorted) {
      const held = result.get(m.memberId)!.length;
      const cap = floor + (withExtra > 0 ? 1 : 0);
      if (held >= cap) continue;
      if (best === undefined || held < result.get(best)!.length) best = m.memberId;
    }
    best ??= sorted[0].memberId;
    const list = result.get(best)!;
    list.push(p);
    if (list.length === floor + 1) withExtra--;
  }
  for (const list of result.values()) list.sort((a, b) => a - b);
  return result;
}

/**
 * The kafkajs assigner. `current()` gives the partitions this member holds now; they travel in the
 * member's userData so the leader can keep assignments sticky.
 */
export function coPartitionedAssigner(current: () => number[], maxPartitions = Infinity): PartitionAssigner {
  return ({ cluster }) => {
    const assigner: Assigner = {
      name: ASSIGNER_NAME,
      version: 1,
      async assign({ members, topics }: { members: GroupMember[]; topics: string[] }): Promise<GroupMemberAssignment[]> {
        const counts = topics.map((t) => cluster.findTopicPartitionMetadata(t).length);
        // Topics of one processor are grown together; until all are, only common partitions are
        // assigned, and none beyond the crawl's current count (scale grows topics before it migrates state).
        const partitions = Math.min(...counts, maxPartitions);
        const infos = members.map((m) => {
          let previous: number[] = [];
          try {
            const meta = MemberMetadata.decode(m.memberMetadata);
            if (meta?.userData?.length) previous = JSON.parse(meta.userData.toString('utf8')) as number[];
          } catch {
            previous = [];
          }
          return { memberId: m.memberId, previous };
        });
        const assignment = assignPartitions(infos, partitions);
        return members.map((m) => {
          const owned = assignment.get(m.memberId) ?? [];
          return {
            memberId: m.memberId,
            memberAssignment: MemberAssignment.encode({
              version: 1,
              assignment: Object.fromEntries(topics.map((t) => [t, owned])),
              userData: Buffer.alloc(0),
            }),
          };
        });
      },
      protocol({ topics }: { topics: string[] }) {
        return {
          name: ASSIGNER_NAME,
          metadata: MemberMetadata.encode({ version: 1, topics, userData: Buffer.from(JSON.stringify(current()), 'utf8') }),
        };
      },
    };
    return assigner;
  };
}

/** An assigner for restore consumers: the single member gets exactly the partitions asked for. */
export function fixedAssigner(partitions: () => Map<string, number[]>): PartitionAssigner {
  return () => ({
    name: 'CrawlstreamFixed',
    version: 1,
    async assign({ members }: { members: GroupMember[]; topics: string[] }) {
      return members.map((m, i) => ({
        memberId: m.memberId,
        memberAssignment: MemberAssignment.encode({
          version: 1,
          assignment: i === 0 ? Object.fromEntries(partitions()) : {},
          userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }: { topics: string[] }) {
      return { name: 'CrawlstreamFixed', metadata: MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }) };
    },
  });
}
