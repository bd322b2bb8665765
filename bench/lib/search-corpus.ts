/**
 * The captures the search benchmark stores: subjects and bodies drawn from a small vocabulary
 * with a skewed frequency (word k is drawn with weight 1/(k + 10)), so some words are in about
 * a third of the captures and others in a few percent, as in a real inbox; plus one rare word in
 * one capture out of 2,000. The same `n` always gives the same capture.
 */
const VOCABULARY = (
  'order account update your new payment invoice welcome confirm password reset receipt shipping ' +
  'delivery team meeting reminder weekly report customer support ticket subscription renewal trial ' +
  'offer discount sale event webinar invitation schedule booking reservation flight hotel travel ' +
  'security alert login verify email address profile settings notification message comment reply ' +
  'project task deadline review approval request document contract signature agreement policy ' +
  'privacy terms change plan upgrade billing statement balance transfer refund return exchange ' +
  'product catalogue release feature launch beta feedback survey rating download install device ' +
  'mobile desktop browser session token access permission share folder upload storage backup ' +
  'calendar agenda minutes summary quarterly annual budget forecast revenue expense approval ' +
  'holiday vacation office remote onboarding training course certificate exam result score ' +
  'newsletter digest highlights trending popular community forum thread member group league ' +
  'match ticket concert festival museum gallery garden kitchen recipe grocery pharmacy clinic ' +
  'appointment doctor dentist insurance claim policyholder vehicle parking charger energy solar'
)
  .split(' ')
  .filter((word, index, all) => all.indexOf(word) === index);

/** The word in one capture out of 2,000 (in its subject). */
const RARE_WORD = 'quokka';
const RARE_EVERY = 2_000;
/** A word no capture holds. */
const ABSENT_WORD = 'zyzzyva';

const WEIGHTS = VOCABULARY.map((_, k) => 1 / (k + 10));
const TOTAL_WEIGHT = WEIGHTS.reduce((a, b) => a + b, 0);

/** The queries the benchmark times, from common to absent. */
export const QUERIES: { label: string; q: string }[] = [
  { label: 'common word', q: VOCABULARY[0]! },
  { label: 'medium word', q: VOCABULARY[60]! },
  { label: 'two words', q: `${VOCABULARY[15]} ${VOCABULARY[35]}` },
  { label: 'rare word', q: RARE_WORD },
  // Found in the From (bulk@acme.example, kept beside the search texts) and, for `order`, in the text.
  { label: 'From and a word', q: `acme ${VOCABULARY[0]}` },
  { label: 'no match', q: ABSENT_WORD },
];

export interface CaptureBody {
  recipient: string;
  subject: string;
  body: string;
}

/** The /v1 send body of capture `n` (from 1). */
export function captureBody(n: number): CaptureBody {
  const random = mulberry32(n);
  const words = (count: number) => Array.from({ length: count }, () => pick(random())).join(' ');
  const subject = words(3 + Math.floor(random() * 3));
  return {
    recipient: `user-${n}@example.com`,
    subject: `${n % RARE_EVERY === 7 ? `${RARE_WORD} ` : ''}${subject[0]!.toUpperCase()}${subject.slice(1)}`,
    // The drawn words open the body; the rest is a footer of words outside the vocabulary, to the
    // size of a typical transactional email's HTML (issue 29: 0.5 KB).
    body: `${HEADER}<p>Hello,</p><p>${words(6 + Math.floor(random() * 6))}.</p>${FOOTER}`,
  };
}

/** Markup and text no query of QUERIES finds, padding a body to about 500 bytes. */
const HEADER = '<div style="max-width:600px;margin:0 auto;padding:24px;background:#ffffff;color:#111827">';
const FOOTER =
  '<table role="presentation" width="100%" style="border-collapse:collapse;font-family:Helvetica,Arial,sans-serif;font-size:12px;color:#6b7280">' +
  '<tr><td style="padding:16px 0;border-top:1px solid #e5e7eb">Sent by Example Ltd, 1 High Street, Springfield. ' +
  '<a href="https://example.com/prefs" style="color:#6b7280">Preferences</a></td></tr></table></div>';

function pick(u: number): string {
  let rest = u * TOTAL_WEIGHT;
  for (let k = 0; k < WEIGHTS.length; k++) {
    rest -= WEIGHTS[k]!;
    if (rest <= 0) return VOCABULARY[k]!;
  }
  return VOCABULARY.at(-1)!;
}

/** A small seeded PRNG (mulberry32): numbers in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = (seed * 0x9e3779b9) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
