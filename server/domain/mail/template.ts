/**
 * Wraps an HTML body in a sender's account template at its `{{content}}` (docs/api-contract.md §3,
 * step 2). The one template function: ingestion and the designers' preview both use it.
 */
export function wrapInTemplate(template: string | null, html: string): string {
  return template === null ? html : template.split('{{content}}').join(html);
}
