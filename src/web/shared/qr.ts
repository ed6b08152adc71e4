/**
 * QR codes of invoices as inline SVG, drawn from the modules `qrcode-generator` computes (no
 * images, no canvas, nothing fetched). The text is `lightning:` and the invoice, upper-cased: QR's
 * compact alphanumeric mode, which BOLT11 readers and wallets accept.
 */
import qrcode from 'qrcode-generator';

const SVG = 'http://www.w3.org/2000/svg';
/** Light modules around the code, as the QR standard asks. */
const QUIET_ZONE = 4;

/** The text a wallet should scan for `invoice`. */
export function lightningUri(invoice: string): string {
  return `lightning:${invoice}`.toUpperCase();
}

/** An SVG QR code of `text`, labelled `label` for assistive technology; sized by CSS. */
export function qrSvg(text: string, label: string): SVGSVGElement {
  const qr = qrcode(0, 'M');
  qr.addData(text, /^[0-9A-Z $%*+\-./:]*$/.test(text) ? 'Alphanumeric' : 'Byte');
  qr.make();
  const count = qr.getModuleCount();
  const size = count + QUIET_ZONE * 2;
  let path = '';
  for (let row = 0; row < count; row++) {
    for (let column = 0; column < count; ) {
      if (!qr.isDark(row, column)) {
        column++;
        continue;
      }
      let run = 1;
      while (column + run < count && qr.isDark(row, column + run)) run++;
      path += `M${column + QUIET_ZONE} ${row + QUIET_ZONE}h${run}v1h-${run}z`;
      column += run;
    }
  }
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${size} ${size}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('shape-rendering', 'crispEdges');
  svg.setAttribute('class', 'qr');
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#ffffff');
  const modules = document.createElementNS(SVG, 'path');
  modules.setAttribute('d', path);
  modules.setAttribute('fill', '#0b0c0c');
  svg.append(background, modules);
  return svg;
}
