import type { DeliveryStatus } from '../entities.ts';

const SIMULATOR_DOMAIN = 'simulator.amazonses.com';
const OUTCOMES: Record<string, DeliveryStatus> = {
  success: 'delivered',
  bounce: 'bounced',
  complaint: 'complained',
  suppressionlist: 'bounced',
  ooto: 'delivered',
};

/**
 * What SES would make of a send to this address (api-contract.md §6): the mailbox-simulator
 * addresses, with or without a +label, give their documented outcome; everything else is
 * delivered.
 */
export function simulatedOutcome(address: string): DeliveryStatus {
  const at = address.lastIndexOf('@');
  if (at < 0 || address.slice(at + 1).toLowerCase() !== SIMULATOR_DOMAIN) return 'delivered';
  const local = address.slice(0, at).toLowerCase().split('+')[0]!;
  return OUTCOMES[local] ?? 'delivered';
}

/** Outcomes after which the recipient is blocked for later sends (§6). */
export function blocksRecipient(status: DeliveryStatus): boolean {
  return status === 'bounced' || status === 'complained';
}
