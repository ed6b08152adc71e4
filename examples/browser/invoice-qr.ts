/**
 * The QR code of a BOLT11 invoice, as an SVG tag. Its own module so the browser test can draw the
 * same code in Node and check the page's QR really encodes the invoice it shows.
 */
import qrcode from 'qrcode-generator';

/** An SVG QR code of `invoice`, upper-cased: QR's compact alphanumeric mode; BOLT11 readers accept either case. */
export function invoiceQrSvg(invoice: string): string {
  const qr = qrcode(0, 'M');
  qr.addData(invoice.toUpperCase(), 'Alphanumeric');
  qr.make();
  return qr.createSvgTag({ cellSize: 3, margin: 4 });
}
