// The player's door to picture export: the DOM side (src/export_dom.js, about 4 KB gzip) is not
// part of the first load but fetched on the first figure, by index.html's
// `window.electionLabExport` (which knows its content-hashed name), and kept.
let dom = null;
let loading = null;

/** Resolves once export_dom.js is loaded; rejects naming what failed (the next call tries again). */
export function ready() {
  if (dom) return Promise.resolve();
  if (!loading) {
    loading = window.electionLabExport().then(
      (m) => { dom = m; loading = null; },
      (e) => { loading = null; throw e; },
    );
  }
  return loading;
}

export function grabFor(lane, scheme) { return dom.grabFor(lane, scheme); }
export function postFigure(loader, job) { dom.postFigure(loader, job); }
