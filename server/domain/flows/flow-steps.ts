import type { FlowConfig, FlowStepConfig } from '../directory/sandbox-config.ts';
import type { RecipientRecord, SubscriptionRecord } from '../entities.ts';

/** The recipient fields a flow email's templates can use (docs/api-contract.md §4). */
const PLACEHOLDER = /\{\{\s*(first_name|last_name|email)\s*\}\}/g;

/**
 * Fills `{{first_name}}`, `{{last_name}}` and `{{email}}`; in HTML the values are escaped, so
 * a name cannot inject markup. Other `{{…}}` text is left as it is.
 */
export function renderTemplate(template: string, recipient: Pick<RecipientRecord, 'email' | 'firstName' | 'lastName'>, html: boolean): string {
  const values: Record<string, string> = { first_name: recipient.firstName, last_name: recipient.lastName, email: recipient.email };
  return template.replace(PLACEHOLDER, (_, name: string) => (html ? escapeHtml(values[name]!) : values[name]!));
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** One line saying what a step does, for the timeline. */
function stepSummary(step: FlowStepConfig): string {
  switch (step.type) {
    case 'send_email':
      return `Send “${step.subject}”`;
    case 'wait':
      return step.untilFlag === undefined ? `Wait ${step.duration}` : `Wait ${step.timeout} or until flag ${step.untilFlag}`;
    case 'condition':
      return step.whenPresent !== undefined ? `If ${step.flag} → ${step.whenPresent}` : `If not ${step.flag} → ${step.whenMissing}`;
    case 'action':
      if (step.action === 'suppress') return 'Suppress the recipient';
      return `${step.action === 'set_flag' ? 'Set' : 'Clear'} flag ${step.flag}`;
  }
}

type StepState = 'done' | 'current' | 'pending' | 'skipped';

export interface TimelineStep {
  order: number;
  name: string | null;
  type: FlowStepConfig['type'];
  state: StepState;
  summary: string;
}

/**
 * Where a subscription is in its flow, step by step: steps that ran are `done`; an active
 * subscription's current step is `current`, the steps before it that did not run (a condition
 * jumped over them) `skipped`, those after it `pending`. Once completed or cancelled, every
 * step that did not run is `skipped`.
 */
export function timeline(flow: FlowConfig, sub: SubscriptionRecord): TimelineStep[] {
  const done = new Set(sub.doneSteps ?? []);
  return flow.steps.map((step, index) => {
    const order = index + 1;
    let state: StepState;
    if (sub.status === 'active' && order === sub.currentStepOrder) state = 'current';
    else if (done.has(order)) state = 'done';
    else if (sub.status === 'active' && order > sub.currentStepOrder) state = 'pending';
    else state = 'skipped';
    return { order, name: step.name ?? null, type: step.type, state, summary: stepSummary(step) };
  });
}

/** The order (1-based) of the step a condition jumps to. */
export function stepOrder(flow: FlowConfig, name: string): number {
  return flow.steps.findIndex((s) => s.name === name) + 1;
}
