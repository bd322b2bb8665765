import { describe, expect, it } from 'vitest';
import { textView } from '../../../server/domain/mail/text-view.ts';

describe('the text view of a capture', () => {
  it('is the plain part when there is one', async () => {
    expect(await textView('<p>HTML</p>', 'Plain part')).toEqual({ text: 'Plain part', derived: false });
    expect(await textView(null, 'Only text')).toEqual({ text: 'Only text', derived: false });
  });

  it('renders the HTML when there is no plain part: headings, lists, links as text (url), tables as columns', async () => {
    const html = `<html><head><style>p{color:red}</style><title>Receipt</title></head><body>
      <table role="presentation" width="100%"><tr><td>
        <h1>Your receipt</h1>
        <p>Thanks, Ada. <a href="https://shop.example/orders/42">View your order</a> or visit <a href="https://shop.example">https://shop.example</a>.</p>
        <ul><li>Fast delivery</li><li>Free returns</li></ul>
        <table><tr><th>Item</th><th>Qty</th><th>Price</th></tr><tr><td>Widget</td><td>2</td><td>$4.00</td></tr><tr><td>Gadget with a long name</td><td>1</td><td>$12.50</td></tr></table>
        <img src="https://shop.example/pixel.gif" alt="">
      </td></tr></table></body></html>`;
    expect(await textView(html, null)).toEqual({
      derived: true,
      text: [
        'Your receipt',
        '',
        'Thanks, Ada. View your order (https://shop.example/orders/42) or visit https://shop.example.',
        '',
        ' * Fast delivery',
        ' * Free returns',
        '',
        'Item                      Qty   Price',
        'Widget                    2     $4.00',
        'Gadget with a long name   1     $12.50',
      ].join('\n'),
    });
    expect(await textView(html, '   \n')).toMatchObject({ derived: true });
  });

  it('keeps the lines of plain text posted into an HTML field, entities decoded', async () => {
    expect(await textView('Hi Ada,\n\nReset: https://app.example/r?a=1&amp;b=2\n\n-- \nAcme', null)).toEqual({
      text: 'Hi Ada,\n\nReset: https://app.example/r?a=1&b=2\n\n-- \nAcme',
      derived: true,
    });
  });

  it('is nothing when there is no body at all', async () => {
    expect(await textView(null, null)).toEqual({ text: null, derived: false });
  });
});
