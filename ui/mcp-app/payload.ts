/** What the server puts in a tool result's `_meta["pigeonhole/view"]` for this view (server/mcp/app-view.ts builds it). */
export interface ViewPayload {
  tool: string;
  messages: ViewMessage[];
}

export interface ViewMessage {
  id: string;
  subject: string;
  from: string;
  to: string[];
  cc: string[];
  created_at: string;
  status: string;
  /** The HTML as captured, `cid:` images inlined as `data:` (null: a plain-text mail). */
  html: string | null;
  text: string | null;
  links: { href: string; text: string }[];
  codes: string[];
  check: CheckSummary | null;
  /** The capture in the sandbox's inbox (opened by the host, outside the view). */
  inbox_url: string;
}

export interface CheckSummary {
  score: number | null;
  market_score: number | null;
  html_bytes: number;
  gmail_clipped: boolean;
  accessibility: { errors: number; warnings: number };
  dark_mode: string[];
  spam: { score: number; threshold: number; is_spam: boolean } | null;
  warnings: string[];
}

export const VIEW_META_KEY = 'pigeonhole/view';
