// The list of T5 buckets and the distances each holds: bucket ranges read off one row of
// pe.t5.buckets, and a keyboard-operable list (arrows pick the next or previous bucket).
import { int } from '../../ui/format.js';

/** @typedef {{ lo: number, hi: number, count: number }} Range */

/**
 * The distances (key − query) each bucket holds, from `curve` = the buckets of distances
 * −reach..reach. Returns, by bucket, { lo, hi, count } (undefined for a bucket no distance reaches);
 * a range touching ±reach goes on beyond it (every farther distance shares the bucket).
 * @param {ArrayLike<number>} curve @param {number} reach @param {number} numBuckets
 * @returns {Array<Range | undefined>}
 */
export function bucketRanges(curve, reach, numBuckets) {
  /** @type {Array<Range | undefined>} */
  const ranges = new Array(numBuckets).fill(undefined);
  for (let k = 0; k < curve.length; k++) {
    const b = curve[k];
    const d = k - reach;
    const r = ranges[b];
    if (!r) ranges[b] = { lo: d, hi: d, count: 1 };
    else {
      r.lo = Math.min(r.lo, d);
      r.hi = Math.max(r.hi, d);
      r.count++;
    }
  }
  return ranges;
}

/** '−22 … −16', '≤ −91', '≥ 91', '5'. @param {Range | undefined} r @param {number} reach */
export function rangeText(r, reach) {
  if (!r) return 'no distance';
  if (r.lo === -reach && r.hi === reach) return 'every distance';
  if (r.lo === -reach) return `≤ ${int(r.hi)}`;
  if (r.hi === reach) return `≥ ${int(r.lo)}`;
  return r.lo === r.hi ? int(r.lo) : `${int(r.lo)} … ${int(r.hi)}`;
}

/**
 * @param {HTMLElement} list  an <ol> (focusable)
 * @param {(bucket: number) => void} pick  a bucket was clicked or reached with the arrows
 * @param {(step: number) => number | null} neighbour  the bucket `step` away from the current one
 */
export function bucketList(list, pick, neighbour) {
  let count = 0;
  /** @type {HTMLElement | null} */
  let current = null;
  list.addEventListener('click', (e) => {
    const item = e.target instanceof Element ? e.target.closest('li[data-bucket]') : null;
    if (item instanceof HTMLElement) pick(Number(item.dataset.bucket));
  });
  list.addEventListener('keydown', (e) => {
    const step = e.key === 'ArrowDown' ? 1 : e.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const b = neighbour(step);
    if (b !== null && b >= 0 && b < count) pick(b);
  });
  return {
    /** @param {Array<Range | undefined>} ranges @param {number} reach */
    fill(ranges, reach) {
      count = ranges.length;
      current = null;
      // one string for up to 512 buckets: much quicker than building the elements one by one
      // (the texts are numbers and the page's own symbols: nothing to escape)
      list.innerHTML = ranges.map((r, b) => {
        const range = rangeText(r, reach);
        const count = r ? (r.lo === -reach || r.hi === reach ? '∞' : String(r.count)) : '0';
        return `<li data-bucket="${b}" data-range="${range}"><span class="b">${b}</span><span class="r">${range}</span><span class="n">${count}</span></li>`;
      }).join('');
    },
    /** Marks bucket b as the current one and keeps it in view inside the list. @param {number} b */
    select(b) {
      const li = list.children[b];
      if (!(li instanceof HTMLElement) || li === current) return;
      current?.classList.remove('current');
      current?.removeAttribute('aria-current');
      current = li;
      li.classList.add('current');
      li.setAttribute('aria-current', 'true');
      // keep it in view inside the list (not the page), once the next frame has laid the list out:
      // reading positions now would force a layout of the whole page
      requestAnimationFrame(() => setTimeout(() => {
        if (li !== current) return;
        if (li.offsetTop < list.scrollTop || li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) {
          list.scrollTop = li.offsetTop - list.clientHeight / 2;
        }
      }));
    },
  };
}
