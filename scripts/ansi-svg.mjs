// ANSI text (tmux `capture-pane -e -p`) -> SVG -> PNG, for the README pictures.
// Used by `node scripts/demo.mjs --capture docs/` only; never by the tests.
// Each cell is placed on a fixed grid (one <text> per run of ASCII, one per
// other character), so glyphs from a fallback font cannot shift the columns.
// SGR understood: 0 1 2 3 4 7 9 22 23 24 27 29, 30-37 39 40-47 49 90-97 100-107,
// 38/48;5;n and 38/48;2;r;g;b. PNG: rsvg-convert (Debian: librsvg2-bin) with
// DejaVu Sans Mono (fonts-dejavu-core).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const BASE16 = [
  '#1d1f21', '#cc6666', '#8fbf5a', '#e5c07b', '#6a9fd4', '#b294bb', '#56b6c2', '#c5c8c6',
  '#5c6370', '#e06c75', '#a8d977', '#f0d58a', '#81a2be', '#c678dd', '#8abeb7', '#ffffff',
];
const DEFAULT_FG = '#d7dae0';
const DEFAULT_BG = '#1d1f21';

function colour256(n) {
  if (n < 16) return BASE16[n];
  if (n < 232) {
    const v = [0, 95, 135, 175, 215, 255];
    const i = n - 16;
    return rgb(v[Math.floor(i / 36)], v[Math.floor(i / 6) % 6], v[i % 6]);
  }
  const g = 8 + (n - 232) * 10;
  return rgb(g, g, g);
}
const rgb = (r, g, b) => `#${[r, g, b].map((x) => x.toString(16).padStart(2, '0')).join('')}`;

const fresh = () => ({ fg: null, bg: null, bold: false, dim: false, italic: false, underline: false, reverse: false, strike: false });

function applySgr(st, params) {
  const p = params === '' ? [0] : params.split(/[;:]/).map((x) => (x === '' ? 0 : Number(x)));
  for (let i = 0; i < p.length; i++) {
    const n = p[i];
    if (n === 0) Object.assign(st, fresh());
    else if (n === 1) st.bold = true;
    else if (n === 2) st.dim = true;
    else if (n === 3) st.italic = true;
    else if (n === 4) st.underline = true;
    else if (n === 7) st.reverse = true;
    else if (n === 9) st.strike = true;
    else if (n === 22) st.bold = st.dim = false;
    else if (n === 23) st.italic = false;
    else if (n === 24) st.underline = false;
    else if (n === 27) st.reverse = false;
    else if (n === 29) st.strike = false;
    else if (n >= 30 && n <= 37) st.fg = BASE16[n - 30];
    else if (n === 39) st.fg = null;
    else if (n >= 40 && n <= 47) st.bg = BASE16[n - 40];
    else if (n === 49) st.bg = null;
    else if (n >= 90 && n <= 97) st.fg = BASE16[n - 90 + 8];
    else if (n >= 100 && n <= 107) st.bg = BASE16[n - 100 + 8];
    else if (n === 38 || n === 48) {
      let c = null;
      if (p[i + 1] === 5) {
        c = colour256(p[i + 2] ?? 0);
        i += 2;
      } else if (p[i + 1] === 2) {
        c = rgb(p[i + 2] ?? 0, p[i + 3] ?? 0, p[i + 4] ?? 0);
        i += 4;
      }
      if (n === 38) st.fg = c;
      else st.bg = c;
    }
  }
}

/** Lines of ANSI text -> rows of cells {ch, fg, bg, bold, ...}. The SGR state carries over lines, as capture-pane writes it. */
export function parseAnsi(lines, cols) {
  const st = fresh();
  return lines.map((line) => {
    const cells = [];
    let i = 0;
    while (i < line.length) {
      if (line[i] === '\x1b') {
        const m = /^\x1b\[([0-9;:]*)([A-Za-z])/.exec(line.slice(i));
        if (m) {
          if (m[2] === 'm') applySgr(st, m[1]);
          i += m[0].length;
          continue;
        }
        const o = /^\x1b[()][0-9A-Za-z]/.exec(line.slice(i)); // charset designation
        i += o ? o[0].length : 1;
        continue;
      }
      const cp = line.codePointAt(i);
      const ch = String.fromCodePoint(cp);
      i += ch.length;
      if (cp < 0x20) continue;
      let fg = st.fg ?? DEFAULT_FG;
      let bg = st.bg;
      if (st.reverse) [fg, bg] = [bg ?? DEFAULT_BG, fg];
      cells.push({ ch, fg, bg, bold: st.bold, dim: st.dim, italic: st.italic, underline: st.underline, strike: st.strike });
    }
    return cells.slice(0, cols);
  });
}

// Box drawing (popup borders) as strokes from the cell centre, so lines join
// across rows whatever the line height: l r u d.
const BOX = {
  '─': 'lr', '│': 'ud', '┌': 'rd', '┐': 'ld', '└': 'ur', '┘': 'ul', '╭': 'rd', '╮': 'ld', '╰': 'ur', '╯': 'ul',
  '├': 'udr', '┤': 'udl', '┬': 'lrd', '┴': 'lru', '┼': 'lrud',
};

function boxPath(dirs, x, y, w, h) {
  const cx = x + w / 2;
  const cy = y + h / 2;
  const to = { l: [x, cy], r: [x + w, cy], u: [cx, y], d: [cx, y + h] };
  return [...dirs].map((k) => `M${cx.toFixed(2)} ${cy.toFixed(2)}L${to[k][0].toFixed(2)} ${to[k][1].toFixed(2)}`).join('');
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * SVG of the cells: a dark terminal background, one rect per background run,
 * text on a grid of cellW x cellH. padRows/padCols: a margin, in cells.
 */
export function ansiToSvg(lines, { cols, fontSize = 15, padCols = 1, padRows = 0.6, font = 'DejaVu Sans Mono' } = {}) {
  const rows = parseAnsi(lines, cols);
  const cw = fontSize * 0.602; // DejaVu Sans Mono advance
  const ch = fontSize * 1.3;
  const W = Math.ceil((cols + 2 * padCols) * cw);
  const H = Math.ceil((rows.length + 2 * padRows) * ch);
  const x0 = padCols * cw;
  const y0 = padRows * ch;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}">`,
    `<rect width="100%" height="100%" fill="${DEFAULT_BG}" rx="6"/>`,
    `<g font-family="${font}, DejaVu Sans, monospace" font-size="${fontSize}" xml:space="preserve">`,
  ];
  rows.forEach((cells, r) => {
    const top = y0 + r * ch;
    // Backgrounds, merged into runs.
    for (let c = 0; c < cells.length; ) {
      const bg = cells[c].bg;
      let e = c + 1;
      while (e < cells.length && cells[e].bg === bg) e++;
      if (bg) out.push(`<rect x="${(x0 + c * cw).toFixed(2)}" y="${top.toFixed(2)}" width="${((e - c) * cw + 0.5).toFixed(2)}" height="${(ch + 0.5).toFixed(2)}" fill="${bg}"/>`);
      c = e;
    }
    // Text: runs of printable ASCII with one style; any other character alone, centred in its cell.
    const base = top + ch * 0.78;
    const same = (a, b) => a.fg === b.fg && a.bold === b.bold && a.dim === b.dim && a.italic === b.italic && a.underline === b.underline && a.strike === b.strike;
    const ascii = (x) => x.ch.codePointAt(0) < 0x7f;
    for (let c = 0; c < cells.length; ) {
      const cell = cells[c];
      let e = c + 1;
      if (ascii(cell)) while (e < cells.length && ascii(cells[e]) && same(cells[e], cell)) e++;
      const text = cells.slice(c, e).map((x) => x.ch).join('');
      if (BOX[text]) {
        out.push(`<path d="${boxPath(BOX[text], x0 + c * cw, top, cw, ch)}" stroke="${cell.fg}" stroke-width="1.2" stroke-linecap="square" fill="none"/>`);
      } else if (text.trim() !== '') {
        const attrs = [`fill="${cell.fg}"`];
        if (cell.bold) attrs.push('font-weight="bold"');
        if (cell.dim) attrs.push('fill-opacity="0.6"');
        if (cell.italic) attrs.push('font-style="italic"');
        const deco = [cell.underline && 'underline', cell.strike && 'line-through'].filter(Boolean).join(' ');
        if (deco) attrs.push(`text-decoration="${deco}"`);
        if (ascii(cell)) {
          attrs.push(`textLength="${((e - c) * cw).toFixed(2)}"`, 'lengthAdjust="spacingAndGlyphs"');
          out.push(`<text x="${(x0 + c * cw).toFixed(2)}" y="${base.toFixed(2)}" ${attrs.join(' ')}>${esc(text)}</text>`);
        } else {
          out.push(`<text x="${(x0 + (c + 0.5) * cw).toFixed(2)}" y="${base.toFixed(2)}" text-anchor="middle" ${attrs.join(' ')}>${esc(text)}</text>`);
        }
      }
      c = e;
    }
  });
  out.push('</g>', '</svg>', '');
  return out.join('\n');
}

/** SVG file -> PNG file with rsvg-convert, at twice the size for sharp text. */
export async function svgToPng(svgFile, pngFile) {
  try {
    await promisify(execFile)('rsvg-convert', ['--zoom', '2', '--format', 'png', '--output', pngFile, svgFile]);
  } catch (err) {
    if (err.code === 'ENOENT') throw new Error('rsvg-convert is not installed (Debian: apt-get install librsvg2-bin fonts-dejavu-core)');
    throw new Error(`rsvg-convert failed: ${String(err.stderr || err.message).trim()}`);
  }
}
