import { describe, expect, it } from 'vitest';
import { CLIENT_VIEWS, renderClientView } from '../../../server/domain/views/render.ts';
import { firstStyle, removals, viewFixture } from '../../support/view-fixtures.ts';

// Every expectation here was written from the shipped caniemail data by hand (the latest test of
// gmail.desktop-webmail, gmail.android, outlook.windows, outlook.outlook-com, apple-mail.macos and
// yahoo.desktop-webmail for each feature the fixture uses), not taken from the code's output.
// `n` is removed; `a` with a note the views apply (html-body "Replaced by a <div>", html-style
// "Not supported inside the <body>", html-background "Only supported on the <body>") is applied;
// any other `a` or `y` stays.

const view = (name: string, client: (typeof CLIENT_VIEWS)[number], mode: 'light' | 'dark' | 'inverted' = 'light') =>
  renderClientView(viewFixture(name), client, mode);

describe('the table newsletter with <style>', () => {
  it('loses in Outlook for Windows what its Word engine does not support', () => {
    const v = view('newsletter.html', 'outlook-windows');
    // border-radius n (line 9 in <style>, line 27 inline), :hover n, child selector n, @media n.
    expect(removals(v)).toEqual([
      'caniemail css-border-radius ×2 @9,27',
      'caniemail css-pseudo-class-hover ×1 @11',
      'caniemail css-selector-child ×1 @12',
      'caniemail css-at-media ×1 @13',
    ]);
    expect(firstStyle(v.html)).toBe(
      'body { margin: 0; background-color: #eef1f5 }\n.wrapper { width: 100%; background-color: #eef1f5 }\n.card { background-color: #ffffff }\nh1 { font-family: Georgia, serif; color: #1f2a44 }\n',
    );
    expect(v.html).toContain('style="display: inline-block; padding: 12px 20px; background-color: #1a73e8; color: #ffffff">Read the digest</a>');
    // Outlook for Windows keeps <body> (html-body y) and <hr> (y).
    expect(v.html).toContain('<body>');
    expect(v.html).toContain('<hr>');
    expect(v).toMatchObject({ client: 'outlook-windows', fidelity: 'low', approximation: true, mode: 'light', dark: null });
  });

  it('shows <body> as a <div> in Gmail, Outlook.com and Yahoo, and changes nothing in Apple Mail', () => {
    for (const client of ['gmail-web', 'gmail-app', 'outlook-com', 'yahoo'] as const) {
      const v = view('newsletter.html', client);
      expect(removals(v), client).toEqual(['caniemail-note html-body ×1 @18']);
      expect(v.html, client).toContain('<div>\n<table class="wrapper"');
      expect(v.html, client).toContain('</table>\n</div>\n</html>');
      // Every rule of the head's <style> is supported there (hover, child selector, @media partial): it stays as written.
      expect(firstStyle(v.html), client).toBe(firstStyle(viewFixture('newsletter.html')));
    }
    const apple = view('newsletter.html', 'apple-mail');
    expect(apple.removed).toEqual([]);
    expect(apple.html).toBe(viewFixture('newsletter.html'));
    expect(apple.fidelity).toBe('high');
  });

  it('links each removal to its check finding and caniemail page, with the test it comes from', () => {
    const [first] = view('newsletter.html', 'outlook-windows').removed;
    expect(first).toEqual({
      rule: 'caniemail',
      what: 'border-radius: 8px',
      reason: 'border-radius: not supported by Outlook (Windows, 2019) (caniemail, latest test 2019).',
      feature: 'css-border-radius',
      finding: 'compatibility/css-border-radius',
      url: 'https://www.caniemail.com/features/css-border-radius/',
      count: 2,
      lines: [9, 27],
    });
    const [body] = view('newsletter.html', 'gmail-web').removed;
    expect(body).toMatchObject({
      rule: 'caniemail-note',
      what: '<body> (shown as a <div>)',
      reason: '<body> element: partial in Gmail (web) (caniemail, latest test 2021-11): "Partial. Replaced by a `<div>` with supported attributes."',
      finding: 'compatibility/html-body',
    });
  });
});

describe('flex and grid', () => {
  it('Gmail drops grid-template and justify-content (n) but keeps flex, grid and gap (y, a)', () => {
    for (const client of ['gmail-web', 'gmail-app'] as const) {
      const v = view('flex-grid.html', client);
      expect(removals(v), client).toEqual(['caniemail css-grid-template ×2 @8,13', 'caniemail-note html-body ×1 @11', 'caniemail css-justify-content ×1 @14']);
      expect(firstStyle(v.html)).toBe('.row { display: flex; gap: 16px }\n.grid { display: grid }\n');
      expect(v.html).toContain('<div style="display: grid; max-width: 600px">');
      expect(v.html).toContain('<div style="display: flex">');
    }
  });

  it('Outlook for Windows drops every flex and grid declaration, and the rules left empty', () => {
    const v = view('flex-grid.html', 'outlook-windows');
    expect(removals(v)).toEqual([
      'caniemail css-display-flex ×2 @7,14',
      'caniemail css-gap ×1 @7',
      'caniemail css-display-grid ×2 @8,13',
      'caniemail css-grid-template ×2 @8,13',
      'caniemail css-justify-content ×1 @14',
    ]);
    expect(firstStyle(v.html)).toBe('');
    expect(v.html).toContain('<div style="max-width: 600px"><span>A</span>');
    expect(v.html).toContain('<div ><span>Left</span>');
  });

  it('Outlook.com drops grid-template only; Yahoo drops gap too; Apple Mail nothing', () => {
    expect(removals(view('flex-grid.html', 'outlook-com'))).toEqual(['caniemail css-grid-template ×2 @8,13', 'caniemail-note html-body ×1 @11']);
    expect(removals(view('flex-grid.html', 'yahoo'))).toEqual([
      'caniemail css-gap ×1 @7',
      'caniemail css-grid-template ×2 @8,13',
      'caniemail-note html-body ×1 @11',
      'caniemail css-justify-content ×1 @14',
    ]);
    expect(view('flex-grid.html', 'apple-mail').html).toBe(viewFixture('flex-grid.html'));
  });
});

describe('background images', () => {
  it('Outlook for Windows drops background-image (n) and keeps the background attribute on <body> only (a, note 2)', () => {
    const v = view('backgrounds.html', 'outlook-windows');
    expect(removals(v)).toEqual(['caniemail css-background-image ×2 @7,12', 'caniemail-note html-background ×1 @12']);
    expect(firstStyle(v.html)).toBe('.hero { background-color: #203040 }\n');
    expect(v.html).toContain('<body background="https://example.com/paper.png">');
    expect(v.html).toContain('<td class="hero"  style="color: #ffffff; padding: 40px">Spring sale</td>');
  });

  it('Gmail keeps them (y) and shows <body> as a <div> with its background attribute', () => {
    const v = view('backgrounds.html', 'gmail-web');
    expect(removals(v)).toEqual(['caniemail-note html-body ×1 @10']);
    expect(v.html).toContain('<div background="https://example.com/paper.png">');
    expect(v.html).toContain(`style="background-image: url('https://example.com/hero.jpg'); color: #ffffff; padding: 40px;"`);
  });

  it('images off removes every background image, in CSS and attributes', () => {
    const v = view('backgrounds.html', 'images-off');
    expect(removals(v)).toEqual(['images-off - ×2 @7,12', 'images-off - ×2 @10,12']);
    expect(v.removed.map((r) => r.what)).toEqual(['background-image: url("https://example.com/hero.jpg")', 'background="https://example.com/paper.png"']);
    expect(firstStyle(v.html)).toBe('.hero { background-color: #203040 }\n');
    expect(v.html).toContain('<body >');
    expect(v.html).toContain('<td class="hero"  style="color: #ffffff; padding: 40px">');
  });
});

describe('SVG and a form', () => {
  it('Outlook for Windows removes the SVG, the inputs and the select, and unwraps the form and the button', () => {
    const v = view('svg-form.html', 'outlook-windows');
    expect(removals(v)).toEqual([
      'caniemail html-svg ×1 @9',
      'caniemail html-form ×1 @11',
      'caniemail html-input-text ×1 @12',
      'caniemail html-input-radio ×1 @13',
      'caniemail html-select ×1 @14',
      'caniemail html-button-submit ×1 @15',
    ]);
    expect(v.html).toContain(
      '<p>How did we do?</p>\n\n<img src="https://example.com/logo.svg" alt="Acme" width="80" height="20">\n\n\n\n\nSend\n\n<p>Thank you.</p>',
    );
  });

  it('Gmail (web) removes the SVG element and the .svg image source (both n); the app keeps the image (a)', () => {
    const web = view('svg-form.html', 'gmail-web');
    expect(removals(web)).toEqual(['caniemail-note html-body ×1 @7', 'caniemail html-svg ×1 @9', 'caniemail image-svg ×1 @10']);
    expect(web.html).toContain('<img  alt="Acme" width="80" height="20">');
    expect(web.html).toContain('<form action="https://example.com/survey" method="post">');
    expect(removals(view('svg-form.html', 'gmail-app'))).toEqual(['caniemail-note html-body ×1 @7', 'caniemail html-svg ×1 @9']);
  });

  it('Outlook.com keeps the form (a) but not the submit button (n); Apple Mail keeps the SVG (a)', () => {
    const v = view('svg-form.html', 'outlook-com');
    expect(removals(v)).toEqual(['caniemail-note html-body ×1 @7', 'caniemail html-svg ×1 @9', 'caniemail html-button-submit ×1 @15']);
    expect(v.html).toContain('<select name="topic"><option>Delivery</option></select>\nSend\n</form>');
    expect(view('svg-form.html', 'apple-mail').removed).toEqual([]);
  });
});

describe('the dark-mode email', () => {
  it('Gmail drops the color-scheme meta and the dark media query (both n); in dark mode the app inverts, the web does nothing', () => {
    const web = view('dark-mode.html', 'gmail-web', 'dark');
    expect(removals(web)).toEqual([
      'caniemail html-meta-color-scheme ×1 @5',
      'caniemail css-at-media-prefers-color-scheme ×1 @9',
      'caniemail-note html-body ×1 @14',
    ]);
    expect(firstStyle(web.html)).toBe('.card { background-color: #ffffff; color: #1f2a44 }\n');
    expect(web.dark).toBe('light');
    expect(web.html).not.toContain('data-pigeonhole-dark');
    const app = view('dark-mode.html', 'gmail-app', 'dark');
    expect(app.dark).toBe('invert');
    // The inbox's inversion (color-mode.ts), after the email.
    expect(app.html).toMatch(/<\/html>\n?<style data-pigeonhole-dark>\n:root \{ filter: invert\(1\) hue-rotate\(180deg\); \}/);
  });

  it("Apple Mail and Outlook.com apply the email's own dark styles; in light mode the query never matches", () => {
    const apple = view('dark-mode.html', 'apple-mail', 'dark');
    expect(apple.removed).toEqual([]);
    expect(apple.dark).toBe('styles');
    expect(apple.html).toContain('@media (min-width: 0px) {\n.card { background-color: #1f2a44; color: #f5f7fa }\n}');
    // The email offers a dark scheme (its meta): the canvas goes dark as the client's does.
    expect(apple.html).toContain('color-scheme: dark; }');
    const outlook = view('dark-mode.html', 'outlook-com', 'dark');
    expect(removals(outlook)).toEqual(['caniemail html-meta-color-scheme ×1 @5', 'caniemail-note html-body ×1 @14']);
    expect(outlook.dark).toBe('styles');
    // Its meta was removed (n): no dark canvas.
    expect(outlook.html).not.toContain('color-scheme: dark');
    expect(view('dark-mode.html', 'apple-mail', 'light').html).toContain('@media (max-width: 0px) {');
  });

  it('Outlook for Windows drops the @media block (css-at-media n) and inverts in dark mode; inverted forces inversion anywhere', () => {
    const v = view('dark-mode.html', 'outlook-windows', 'dark');
    expect(removals(v)).toEqual(['caniemail html-meta-color-scheme ×1 @5', 'caniemail css-at-media ×1 @9']);
    expect(v.dark).toBe('invert');
    const inverted = view('dark-mode.html', 'apple-mail', 'inverted');
    expect(inverted.dark).toBe('invert');
    expect(inverted.html).toContain('@media (max-width: 0px) {');
    expect(inverted.html).toContain('filter: invert(1) hue-rotate(180deg)');
  });
});

describe('images off', () => {
  it('shows each image as its alt text in a box of its size, says where alt is missing, and leaves decorative ones empty', () => {
    const v = view('images.html', 'images-off');
    expect(removals(v)).toEqual(['images-off - ×1 @8', 'images-off - ×1 @9', 'images-off - ×1 @10']);
    expect(v.removed.map((r) => [r.what, r.finding])).toEqual([
      ['<img alt="…">', null],
      ['<img src="photo.png">', 'accessibility/img-alt'],
      ['<img alt="">', null],
    ]);
    expect(v.html).not.toContain('<img');
    expect(v.html).toMatch(
      /<span data-pigeonhole-image-off="alt" role="img" aria-label="Spring sale: 20% off" style="[^"]*;width:600px;height:300px;">Spring sale: 20% off<\/span>/,
    );
    expect(v.html).toMatch(
      /<span data-pigeonhole-image-off="missing" role="img" aria-label="No alt text: photo.png" style="[^"]*;width:200px;height:100px;[^"]*">No alt text: photo.png<\/span>/,
    );
    expect(v.html).toMatch(/<span data-pigeonhole-image-off="decorative" aria-hidden="true" style="[^"]*;width:1px;height:1px;"><\/span>/);
    expect(v.html).toContain('<p>Text stays.</p>');
    expect(v).toMatchObject({ fidelity: 'high', name: 'Images off' });
  });

  it('the other views keep the images', () => {
    for (const client of CLIENT_VIEWS.filter((c) => c !== 'images-off')) expect(view('images.html', client).html.split('<img').length, client).toBe(4);
  });
});

describe("Gmail's clip at 102 KB", () => {
  // 150,114 bytes (146.6 KB); the clip at byte 104,415 leaves 45,699 bytes (44.6 KB) out.
  // 100-byte paragraphs after a 100-byte head: paragraph n (from 0) starts at byte 100 + 100 n.
  // 102 KB is byte 104,448, inside paragraph 1043 (104,400 to 104,499), whose last tag before
  // it is its `</p>` at 104,415: the clip cuts there, so Gmail shows "Item 1043" (its <p> closed
  // before the marker) and nothing after.
  const head = `${'<!DOCTYPE html><html><head><title>Long</title></head><body>'.padEnd(99, ' ')}\n`;
  const paragraph = (n: number) => `${`<p>Item ${String(n).padStart(4, '0')}</p>`.padEnd(99, '.')}\n`;
  const long = `${head + Array.from({ length: 1500 }, (_, n) => paragraph(n)).join('')}</body></html>`;

  it('is a 150 KB email', () => {
    expect(Buffer.byteLength(long)).toBe(100 + 1500 * 100 + 14);
  });

  it('cuts Gmail views at the last tag before 102 KB and shows the marker', () => {
    for (const client of ['gmail-web', 'gmail-app'] as const) {
      const v = renderClientView(long, client);
      expect(v.html, client).toContain(
        `${paragraph(1042)}<p>Item 1043</p></div></html><div data-pigeonhole-clip style="margin:24px 0 0;padding:12px 16px;border-top:1px solid #dadce0;font:14px Arial,Helvetica,sans-serif;color:#5f6368;background:#fff">[Message clipped]&nbsp;&nbsp;<span style="color:#1a73e8;text-decoration:underline">View entire message</span></div>`,
      );
      expect(v.html, client).not.toContain('Item 1044');
      // Open elements are closed before the marker (the body, shown as a div, and html).
      expect(v.html.indexOf('</html>'), client).toBeLessThan(v.html.indexOf('[Message clipped]'));
      expect(v.removed.at(-1), client).toEqual({
        rule: 'gmail-clip',
        what: 'the HTML after byte 104,448 (44.6 KB of 146.6 KB)',
        reason: 'Gmail clips the HTML of a message past 102 KB and shows "[Message clipped]  View entire message" (a rule caniemail\'s data does not hold).',
        feature: null,
        finding: 'size/gmail_clipped',
        url: null,
        count: 1,
        lines: [1045],
      });
    }
  });

  it('does not clip other clients, nor an email under 102 KB', () => {
    expect(renderClientView(long, 'apple-mail').html).toContain('Item 1499');
    expect(renderClientView(long, 'outlook-com').html).not.toContain('[Message clipped]');
    expect(view('newsletter.html', 'gmail-web').html).not.toContain('[Message clipped]');
  });
});

describe('the caniemail notes the views apply to partial support', () => {
  it('Gmail drops a <style> inside <body> (html-style note 1) and keeps the one in <head>', () => {
    const html = '<html><head><style>.a { color: red }</style></head>\n<body>\n<style>.b { color: blue }</style><p class="a b">x</p></body></html>';
    for (const client of ['gmail-web', 'gmail-app'] as const) {
      const v = renderClientView(html, client);
      expect(removals(v), client).toEqual(['caniemail-note html-body ×1 @2', 'caniemail-note html-style ×1 @3']);
      expect(v.html, client).toBe('<html><head><style>.a { color: red }</style></head>\n<div>\n<p class="a b">x</p></div></html>');
    }
    // Yahoo supports <style> anywhere (y): only its <body> becomes a <div>.
    expect(removals(renderClientView(html, 'yahoo'))).toEqual(['caniemail-note html-body ×1 @2']);
  });

  it("Gmail's web client drops a <style> over 16 KB (html-style note 6, its latest test only)", () => {
    const big = `<style>${'.a { color: red }\n'.repeat(1000)}</style><p class="a">x</p>`;
    expect(big.length).toBeGreaterThan(16 * 1024 + 15);
    const web = renderClientView(big, 'gmail-web');
    expect(removals(web)).toEqual(['caniemail-note html-style ×1 @1']);
    expect(web.html).toBe('<p class="a">x</p>');
    // The app's latest test (a #1 #2) has no such note: kept as written.
    expect(renderClientView(big, 'gmail-app').html).toBe(big);
  });

  it('Gmail drops height-based media queries (css-at-media note 7); Outlook.com drops nested ones (note 1)', () => {
    const css =
      '<style>@media (max-height: 500px) { .a { color: red } }\n@media (max-width: 600px) { .b { color: blue } @media (min-width: 10px) { .c { color: green } } }</style>';
    expect(removals(renderClientView(css, 'gmail-web'))).toEqual(['caniemail-note css-at-media ×1 @1']);
    expect(firstStyle(renderClientView(css, 'gmail-web').html)).toBe(
      '@media (max-width: 600px) {\n.b { color: blue }\n@media (min-width: 10px) {\n.c { color: green }\n}\n}\n',
    );
    const outlook = renderClientView(css, 'outlook-com');
    expect(removals(outlook)).toEqual(['caniemail-note css-at-media ×1 @2']);
    expect(firstStyle(outlook.html)).toBe('@media (max-height: 500px) {\n.a { color: red }\n}\n@media (max-width: 600px) {\n.b { color: blue }\n}\n');
  });
});
