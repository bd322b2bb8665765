/** The client platforms the compatibility check can be narrowed to (as Mailpit's check). */
export type Platform = 'desktop' | 'web' | 'mobile';
export const PLATFORMS: readonly Platform[] = ['desktop', 'web', 'mobile'];
