// Sizes for people: one unit per figure, and one shared unit for "done of total".

const UNITS = ["B", "KB", "MB", "GB", "TB"];

/** The unit that suits `bytes` (powers of 1024) and the divisor for it. */
function unitOf(bytes: number): { unit: string; div: number } {
  let i = 0;
  let div = 1;
  while (bytes >= div * 1024 && i < UNITS.length - 1) {
    div *= 1024;
    i++;
  }
  return { unit: UNITS[i], div };
}

/** One decimal below 10 of a unit above bytes ("4.2 KB"), none otherwise ("37 MB"). */
function decimals(bytes: number, div: number): number {
  return div > 1 && bytes / div < 10 ? 1 : 0;
}

function figure(bytes: number, div: number, places = decimals(bytes, div)): string {
  return (bytes / div).toFixed(places);
}

/** "812 B", "4.2 KB", "37 MB", "1.3 GB". */
export function size(bytes: number): string {
  const { unit, div } = unitOf(Math.max(0, bytes));
  return `${figure(Math.max(0, bytes), div)} ${unit}`;
}

/** "12 of 34 KB", "0.4 of 2.4 GB": both figures in the total's unit, so they compare at a glance. */
export function sizeOf(done: number, total: number): string {
  const all = Math.max(0, total);
  const { unit, div } = unitOf(all);
  const places = decimals(all, div);
  return `${figure(Math.min(Math.max(0, done), all), div, places)} of ${figure(all, div, places)} ${unit}`;
}
