import type { DeliveryStatus, MessageRecord } from '../entities.ts';

const SIMULATOR_DOMAIN = 'simulator.amazonses.com';
const OUTCOMES: Record<string, DeliveryStatus> = {
  success: 'delivered',
  bounce: 'bounced',
  complaint: 'complained',
  suppressionlist: 'bounced',
  ooto: 'delivered',
};

/**
 * What SES would make of a send to this address (docs/api-contract.md §6): the mailbox-simulator
 * addresses, with or without a +label, give their documented outcome; everything else is
 * delivered.
 */
export function simulatedOutcome(address: string): DeliveryStatus {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== SIMULATOR_DOMAIN) return 'delivered';
  const local = address.slice(0, at).toLowerCase().split('+')[0]!;
  return OUTCOMES[local] ?? 'delivered';
}

/**
 * The block a delivery outcome leaves (docs/api-contract.md §6): a bounce or a complaint blocks the recipient for
 * the team's later sends; other outcomes, and captures of no team (anonymous SMTP), block
 * nothing. One rule for every way an outcome comes about: at capture, when a delivery delay
 * passes, or forced through the sandbox API.
 *
 * The address blocked is the original recipient, the one the sender asked for, also under
 * Development Mode, where the mail went to the development address instead (sandbox
 * decision): blocks are checked on the original recipient (docs/api-contract.md §3), so only a block on it stops
 * the next send to it, and the email record the outcome belongs to names it. The development
 * address is never blocked for standing in for someone else.
 */
export function outcomeBlock(
  record: Pick<MessageRecord, 'team' | 'recipient'>,
  outcome: DeliveryStatus,
): { team: string; email: string; reason: 'bounce' | 'complaint' } | null {
  if (record.team === null || (outcome !== 'bounced' && outcome !== 'complained')) return null;
  return { team: record.team, email: record.recipient, reason: outcome === 'bounced' ? 'bounce' : 'complaint' };
}
