// The console's icon, the brand mark of the top bar (a rounded square, violet to blue): an SVG
// that the layout links (/favicon.svg), and the same mark as a 32×32 ICO for /favicon.ico, which
// browsers and other tools ask for without reading any page. Both are made here, so there is no
// binary file to keep in step with the stylesheet.

const FROM = [0x6e, 0x40, 0xc9]; // #6e40c9, top left (assets/style.ts, .brand-mark)
const TO = [0x09, 0x69, 0xda]; // #0969da, bottom right

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6e40c9"/><stop offset="1" stop-color="#0969da"/></linearGradient></defs><rect width="32" height="32" rx="9" fill="url(#g)"/></svg>`;

/** How much of pixel (x, y) the rounded square covers, sampled 4×4. */
function coverage(x: number, y: number, size: number, radius: number): number {
  let inside = 0;
  for (let sy = 0; sy < 4; sy++)
    for (let sx = 0; sx < 4; sx++) {
      const px = x + (sx + 0.5) / 4;
      const py = y + (sy + 0.5) / 4;
      const dx = Math.max(radius - px, px - (size - radius), 0);
      const dy = Math.max(radius - py, py - (size - radius), 0);
      if (dx * dx + dy * dy <= radius * radius) inside++;
    }
  return inside / 16;
}

/** A one-image ICO holding a 32-bit BMP: rows bottom-up, BGRA, then an all-zero AND mask (alpha decides). */
function makeIco(size = 32, radius = 9): Buffer {
  const pixels = size * size * 4;
  const mask = size * 4; // one bit a pixel, rows padded to 32 bits: 4 bytes a row at 32 px
  const image = 40 + pixels + mask;
  const out = Buffer.alloc(6 + 16 + image);
  out.writeUInt16LE(1, 2); // type: icon
  out.writeUInt16LE(1, 4); // one image
  out.writeUInt8(size, 6);
  out.writeUInt8(size, 7);
  out.writeUInt16LE(1, 10); // planes
  out.writeUInt16LE(32, 12); // bits a pixel
  out.writeUInt32LE(image, 14);
  out.writeUInt32LE(22, 18); // offset of the image
  out.writeUInt32LE(40, 22); // BITMAPINFOHEADER
  out.writeInt32LE(size, 26);
  out.writeInt32LE(size * 2, 30); // the XOR image and the AND mask
  out.writeUInt16LE(1, 34);
  out.writeUInt16LE(32, 36);
  out.writeUInt32LE(pixels + mask, 42);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const t = (x + y) / (2 * (size - 1));
      const at = 62 + ((size - 1 - y) * size + x) * 4;
      const [r, g, b] = FROM.map((from, i) => Math.round(from + (TO[i]! - from) * t)) as [number, number, number];
      out.writeUInt8(b, at);
      out.writeUInt8(g, at + 1);
      out.writeUInt8(r, at + 2);
      out.writeUInt8(Math.round(255 * coverage(x, y, size, radius)), at + 3);
    }
  return out;
}

export const FAVICON_ICO = makeIco();
