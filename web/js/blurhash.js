// BlurHash (Wolt's published algorithm, "Algorithm.md"): paints the few colour components the
// server computed for a photo (its `blurhash`) on a small canvas, the blurred stand-in a
// sensitive photo shows until tapped. No library of it can be fetched here; the server's side
// is checked against PyPI's blurhash, and this decoder against the server in the browser test.
const DIGITS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~';

const base83 = (text) => [...text].reduce((value, c) => value * 83 + DIGITS.indexOf(c), 0);
const linear = (byte) => {
  const v = byte / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const sRGB = (value) => {
  const v = Math.max(0, Math.min(1, value));
  return Math.round(v <= 0.0031308 ? v * 12.92 * 255 : (1.055 * v ** (1 / 2.4) - 0.055) * 255);
};
const signedPow = (value, exponent) => Math.sign(value) * Math.abs(value) ** exponent;

/** RGBA pixels (`width`×`height`) of `hash`, or null for a hash that is not well formed. */
export function blurhashPixels(hash, width, height) {
  if (typeof hash !== 'string' || hash.length < 6 || [...hash].some((c) => !DIGITS.includes(c))) return null;
  const size = base83(hash[0]);
  const nx = (size % 9) + 1;
  const ny = Math.floor(size / 9) + 1;
  if (hash.length !== 4 + 2 * nx * ny) return null;
  const maximum = (base83(hash[1]) + 1) / 166;
  const dc = base83(hash.slice(2, 6));
  const colours = [[linear(dc >> 16), linear((dc >> 8) & 255), linear(dc & 255)]];
  for (let i = 1; i < nx * ny; i += 1) {
    const v = base83(hash.slice(4 + i * 2, 6 + i * 2));
    colours.push([Math.floor(v / 361), Math.floor(v / 19) % 19, v % 19].map((q) => signedPow((q - 9) / 9, 2) * maximum));
  }
  const pixels = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const rgb = [0, 0, 0];
      for (let j = 0; j < ny; j += 1) {
        for (let i = 0; i < nx; i += 1) {
          const basis = Math.cos((Math.PI * x * i) / width) * Math.cos((Math.PI * y * j) / height);
          const c = colours[j * nx + i];
          rgb[0] += c[0] * basis; rgb[1] += c[1] * basis; rgb[2] += c[2] * basis;
        }
      }
      const at = 4 * (y * width + x);
      pixels.set([sRGB(rgb[0]), sRGB(rgb[1]), sRGB(rgb[2]), 255], at);
    }
  }
  return pixels;
}

/** A 32×32 canvas painted with `hash` (stretched by CSS to its box), or null. */
export function blurhashCanvas(hash) {
  const pixels = blurhashPixels(hash, 32, 32);
  if (!pixels) return null;
  const canvas = document.createElement('canvas');
  canvas.width = 32;
  canvas.height = 32;
  canvas.className = 'blurhash';
  canvas.setAttribute('aria-hidden', 'true');
  canvas.getContext('2d').putImageData(new ImageData(pixels, 32, 32), 0, 0);
  return canvas;
}
