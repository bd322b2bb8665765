import { safeStorage } from './storage.ts';

/** What the inbox remembers between visits: localStorage, or memory for this visit where the browser blocks it. */
export const remembered = safeStorage(() => window.localStorage);

export const PREVIEW_WIDTH_KEY = 'pigeonhole.previewWidth';
export const TEMPLATE_DRAFT_KEY = 'pigeonhole.templateDraft';
