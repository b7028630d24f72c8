/**
 * The one stylesheet of every HTML page (src/platform/http/Html.ts puts it inline in each page):
 * design tokens as CSS custom properties, light by default and dark under
 * `prefers-color-scheme: dark`. Components use the tokens only, never a colour of their own, so
 * a colour changes in one place and both schemes keep WCAG AA contrast (the axe tests of
 * test/storefront and test/platform check every page in both).
 */

/** The tokens of the light scheme; the dark block below overrides the colours only. */
const TOKENS = `
  :root {
    color-scheme: light dark;
    --font: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
    --fg: #1d2330; --muted: #586173; --bg: #f4f5f7; --surface: #fff; --line: #b8bfcc; --soft-line: #dde1e8;
    --accent: #2357d9; --accent-fg: #fff; --link: #2357d9;
    --ok: #116b3a; --okbg: #e5f5ec; --err: #8a1c1c; --errbg: #fdecec; --note: #5a4300; --notebg: #fff4d1;
    --shadow: 0 2px 12px rgba(0, 0, 0, .08);
    --radius: 12px; --radius-sm: 8px; --page: 42rem; --narrow: 28rem;
  }
  @media (prefers-color-scheme: dark) {
    :root {
      --fg: #e6e9ef; --muted: #a6aebd; --bg: #12151b; --surface: #1c2029; --line: #4a5263; --soft-line: #2c3240;
      --accent: #4b7bf0; --accent-fg: #0b0f1a; --link: #9db8ff;
      --ok: #8fe0b0; --okbg: #12321f; --err: #f3b0b0; --errbg: #3a1717; --note: #f5d88a; --notebg: #33290d;
      --shadow: none;
    }
  }`

/** Page frame: the header bar, `<main>` as one card, the footer. */
const FRAME = `
  * { box-sizing: border-box; }
  body { margin: 0; font: 16px/1.5 var(--font); background: var(--bg); color: var(--fg); }
  a { color: var(--link); }
  :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  .skip { position: absolute; left: -999px; top: .5rem; background: var(--surface); color: var(--fg); padding: .5rem .75rem; border-radius: var(--radius-sm); }
  .skip:focus { left: .5rem; z-index: 1; }
  header.site { background: var(--surface); border-bottom: 1px solid var(--soft-line); }
  header.site .bar, footer.site .bar { max-width: var(--page); margin: 0 auto; padding: .75rem 1rem; display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: .5rem 1.25rem; }
  a.brand { display: inline-flex; align-items: center; gap: .5rem; color: var(--fg); font-weight: 700; letter-spacing: .01em; text-decoration: none; }
  .logo { width: 28px; height: 28px; flex: none; }
  .logo .mark { fill: var(--accent); }
  .logo .globe { fill: none; stroke: var(--accent-fg); stroke-width: 2; }
  header.site nav, footer.site nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
  header.site nav a { color: var(--fg); font-weight: 500; text-decoration: none; padding: .25rem 0; }
  header.site nav a:hover { text-decoration: underline; }
  main { max-width: var(--page); margin: 1.5rem auto 2rem; padding: 2rem; background: var(--surface); border-radius: var(--radius); box-shadow: var(--shadow); }
  main.narrow { max-width: var(--narrow); }
  footer.site { border-top: 1px solid var(--soft-line); color: var(--muted); font-size: .9rem; }
  footer.site .bar { display: block; }
  footer.site a { color: var(--fg); }
  footer.site p { margin: .5rem 0 0; }`

/** Text, forms, buttons and messages. */
const ELEMENTS = `
  h1 { font-size: 1.4rem; line-height: 1.25; margin: 0 0 1rem; overflow-wrap: anywhere; }
  h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
  p { margin: .5rem 0 1rem; }
  label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
  input, select { width: 100%; padding: .6rem .7rem; font: inherit; border: 1px solid var(--line); border-radius: var(--radius-sm); background: var(--surface); color: inherit; }
  input[type=checkbox], input[type=radio] { width: auto; }
  button, .button { display: inline-block; font: inherit; font-weight: 600; padding: .6rem 1.1rem; border-radius: var(--radius-sm); border: 1px solid transparent; cursor: pointer; text-decoration: none; }
  .primary { background: var(--accent); color: var(--accent-fg); }
  .secondary { background: transparent; border-color: var(--line); color: inherit; }
  button:disabled { opacity: .7; cursor: progress; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; margin-top: 1.5rem; }
  .error, .success, .note { padding: .6rem .8rem; border-radius: var(--radius-sm); }
  .error { background: var(--errbg); color: var(--err); }
  .success { background: var(--okbg); color: var(--ok); }
  .note { background: var(--notebg); color: var(--note); }
  .muted { color: var(--muted); font-size: .9rem; }
  .price { font-size: 1.6rem; font-weight: 700; overflow-wrap: anywhere; }
  .label + .price { margin-top: 0; }
  .row { display: flex; gap: .75rem; } .row > * { flex: 1; }
  dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
  table.lines { width: 100%; border-collapse: collapse; margin: .5rem 0 1rem; }
  table.lines th, table.lines td { text-align: left; padding: .4rem .5rem .4rem 0; border-bottom: 1px solid var(--soft-line); }
  table.lines .amount { text-align: right; padding-right: 0; white-space: nowrap; }
  ol.timeline { padding-left: 1.2rem; } ol.timeline li { margin: .35rem 0; }
  ul.scopes { list-style: none; padding-left: 0; margin: .25rem 0; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; }
  ul.scopes li { display: flex; align-items: center; gap: .4rem; }
  ul.scopes label { display: inline; margin: 0; font-weight: 400; }
  nav.actions { margin-bottom: 1.25rem; }
  code { font-size: .9em; word-break: break-all; }
  pre { font-size: .85rem; white-space: pre-wrap; overflow-wrap: anywhere; margin: .4rem 0; padding: .5rem; background: var(--bg); border: 1px solid var(--soft-line); border-radius: var(--radius-sm); }
  article.info h2 { margin-top: 1.75rem; }`

/** The storefront's search box, filters, result lists and paging. */
const STOREFRONT = `
  form.search { display: flex; gap: .5rem; margin: 0 0 1rem; }
  form.search input { flex: 1; min-width: 0; }
  form.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: end; margin: 0 0 1rem; }
  form.filters > div { flex: 1 1 8rem; } form.filters label { margin-top: 0; }
  ol.results { list-style: none; padding: 0; margin: 1rem 0 0; }
  ol.results li { display: flex; flex-wrap: wrap; align-items: baseline; gap: .25rem .75rem; padding: .75rem 0; border-top: 1px solid var(--line); }
  ol.results .name { font-weight: 700; flex: 1 1 12rem; overflow-wrap: anywhere; }
  ol.results .status { font-size: .9rem; }
  ol.results .next { flex: 1 1 100%; font-size: .9rem; }
  nav.pages { display: flex; justify-content: space-between; margin-top: 1.5rem; }`

/**
 * The console's charts (src/console/Chart.ts: SVG, coloured by class) and its links with their QR
 * codes (black on white, as the library draws them, in both schemes: scanners want a light ground).
 */
const CHARTS = `
  figure.chart { margin: 1rem 0 1.5rem; }
  figure.chart figcaption { font-weight: 600; }
  svg.chart { display: block; width: 100%; max-width: 28rem; height: auto; }
  svg.chart .bar { fill: var(--accent); }
  svg.chart .grid line { stroke: var(--soft-line); }
  svg.chart .axis { stroke: var(--line); }
  svg.chart text { fill: var(--muted); font: 13px var(--font); }
  ol.links { list-style: none; padding: 0; margin: 1rem 0 0; }
  ol.links > li { display: flex; flex-wrap: wrap; gap: .75rem 1.25rem; padding: 1rem 0; border-top: 1px solid var(--line); }
  ol.links .about { flex: 1 1 16rem; min-width: 0; }
  ol.links .actions { margin-top: .5rem; }
  .qr { flex: none; width: 8.5rem; }
  .qr svg { display: block; width: 100%; height: auto; }`

/** 390 px phones: the card fills the width, rows stack. */
const NARROW_SCREENS = `
  @media (max-width: 30rem) {
    main { margin: .5rem; padding: 1.25rem; }
    .row { flex-direction: column; gap: 0; }
    dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: .4rem; }
  }`

export const STYLE = [TOKENS, FRAME, ELEMENTS, STOREFRONT, CHARTS, NARROW_SCREENS].join("\n")
