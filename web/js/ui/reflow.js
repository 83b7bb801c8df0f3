// Tables on narrow screens: page.css turns each row of a `table.reflow` into a card of label: value
// lines. The labels are the column headers, copied here onto each cell (data-label) so that the
// stylesheet can write them.

/** @param {HTMLTableElement} table */
export function labelCells(table) {
  const headers = [...table.querySelectorAll('thead th')].map((th) => th.textContent?.trim() ?? '');
  for (const row of table.querySelectorAll('tbody tr')) {
    [...row.children].forEach((cell, k) => {
      if (cell instanceof HTMLElement && headers[k]) cell.dataset.label = headers[k];
    });
  }
}
