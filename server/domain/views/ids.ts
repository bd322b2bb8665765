/** The client views and their modes, without the data they need (routes validate with them before it loads). */
export const CLIENT_VIEWS = ['gmail-web', 'gmail-app', 'outlook-windows', 'outlook-com', 'apple-mail', 'yahoo', 'images-off'] as const;
export type ClientViewId = (typeof CLIENT_VIEWS)[number];

export const RENDER_MODES = ['light', 'dark', 'inverted'] as const;
export type RenderMode = (typeof RENDER_MODES)[number];
