// The console's one stylesheet, served by the app at /console.css (no front-end build): a
// quiet developer-tool look, readable at a glance, with visible keyboard focus.
export const CONSOLE_CSS = `
:root {
  --fg: #1f2328; --muted: #59636e; --faint: #818b98; --bg: #ffffff; --canvas: #f6f8fa; --border: #d1d9e0;
  --accent: #0969da; --accent-bg: #ddf4ff; --ok: #1a7f37; --ok-bg: #dafbe1; --warn: #9a6700; --warn-bg: #fff8c5;
  --bad: #d1242f; --bad-bg: #ffebe9; --done: #8250df; --done-bg: #fbefff;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  --sans: -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif;
  --radius: 6px;
}
* { box-sizing: border-box; }
html { font-size: 14px; }
body { margin: 0; font-family: var(--sans); color: var(--fg); background: var(--canvas); line-height: 1.5; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; border-radius: 3px; }
code, .mono { font-family: var(--mono); font-size: 0.92em; }
pre { font-family: var(--mono); font-size: 12.5px; background: var(--canvas); border: 1px solid var(--border); border-radius: var(--radius); padding: 10px 12px; overflow-x: auto; white-space: pre-wrap; word-break: break-word; margin: 0; }
h1 { font-size: 1.6rem; font-weight: 600; margin: 0 0 4px; }
h2 { font-size: 1.15rem; font-weight: 600; margin: 0; }
h3 { font-size: 1rem; font-weight: 600; margin: 0 0 6px; }
p { margin: 0 0 8px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--bg); padding: 8px; z-index: 10; }
.skip:focus { left: 8px; }

.top { background: #1f2328; color: #f0f6fc; }
.top-inner { max-width: 1200px; margin: 0 auto; padding: 0 20px; display: flex; align-items: center; gap: 20px; height: 52px; }
.brand { color: #fff; font-weight: 700; font-size: 1.1rem; letter-spacing: .2px; display: flex; align-items: center; gap: 8px; }
.brand-mark { display: inline-block; width: 22px; height: 22px; border-radius: 6px; background: linear-gradient(135deg, #6e40c9, #0969da); }
.nav { display: flex; gap: 2px; flex: 1; }
.nav a { color: #d1d9e0; padding: 6px 10px; border-radius: var(--radius); font-weight: 500; }
.nav a:hover { background: #32383f; text-decoration: none; color: #fff; }
.nav a[aria-current="page"] { background: #32383f; color: #fff; box-shadow: inset 0 -2px 0 #fd8c73; }
.who { display: flex; align-items: center; gap: 10px; color: #d1d9e0; font-size: .9rem; }
.who form { margin: 0; }
.who button { background: transparent; color: #d1d9e0; border: 1px solid #4d545c; padding: 3px 10px; }
.who button:hover { background: #32383f; color: #fff; }

main { max-width: 1200px; margin: 0 auto; padding: 24px 20px 64px; }
.page-head { display: flex; align-items: flex-end; justify-content: space-between; gap: 16px; margin-bottom: 18px; flex-wrap: wrap; }
.sub { color: var(--muted); margin: 0; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px; }
.cols { display: grid; grid-template-columns: minmax(0, 2fr) minmax(280px, 1fr); gap: 16px; align-items: start; }
@media (max-width: 900px) { .cols { grid-template-columns: minmax(0, 1fr); } }
.stack > * + * { margin-top: 16px; }
/* Narrow screens: the bar wraps instead of overflowing: brand and who on the first row, the nav
   on its own row below, wrapping again if it must (no script, so no menu toggle). */
@media (max-width: 760px) {
  .top-inner { flex-wrap: wrap; height: auto; min-height: 52px; padding: 8px 12px; gap: 6px 12px; }
  .nav { order: 3; flex: 1 1 100%; flex-wrap: wrap; gap: 2px 4px; margin: 0 -8px; }
  .nav a { padding: 4px 8px; }
  .nav:empty { display: none; }
  .who { margin-left: auto; flex-wrap: wrap; justify-content: flex-end; gap: 4px 8px; min-width: 0; }
  .who > span { overflow-wrap: anywhere; }
  main { padding: 16px 12px 48px; }
  /* A table wider than the screen (the ingest runs' eight columns) scrolls inside its box. */
  .box-body { overflow-x: auto; }
}

.box { background: var(--bg); border: 1px solid var(--border); border-radius: var(--radius); }
.box-head { display: flex; justify-content: space-between; align-items: center; gap: 10px; padding: 10px 16px; border-bottom: 1px solid var(--border); background: var(--canvas); border-radius: var(--radius) var(--radius) 0 0; }
.box-body { padding: 14px 16px; }
.box-body.flush { padding: 0; }
.row { padding: 12px 16px; border-top: 1px solid var(--border); }
.row:first-child { border-top: 0; }
.empty { color: var(--muted); padding: 18px 16px; text-align: center; }

table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: 8px 12px; border-top: 1px solid var(--border); vertical-align: top; }
thead th { border-top: 0; color: var(--muted); font-weight: 600; font-size: .85rem; background: var(--canvas); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; margin: 0; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }

.pill { display: inline-block; padding: 0 8px; border-radius: 2em; font-size: 12px; font-weight: 500; line-height: 20px; border: 1px solid transparent; white-space: nowrap; }
.pill-drafting { background: var(--canvas); color: var(--muted); border-color: var(--border); }
.pill-queued { background: var(--warn-bg); color: var(--warn); border-color: #d4a72c66; }
.pill-active { background: var(--ok-bg); color: var(--ok); border-color: #4ac26b66; }
.pill-retired { background: var(--done-bg); color: var(--done); border-color: #c297ff66; }
.pill-type { background: var(--accent-bg); color: var(--accent); border-color: #54aeff66; }
.pill-pass { background: var(--ok-bg); color: var(--ok); }
.pill-warn, .pill-not_judged { background: var(--warn-bg); color: var(--warn); }
.pill-block, .pill-refused, .pill-failed, .pill-abandoned { background: var(--bad-bg); color: var(--bad); }
.pill-reaped, .pill-nothing_to_reap, .pill-finished { background: var(--ok-bg); color: var(--ok); }
.pill-running { background: var(--accent-bg); color: var(--accent); }
.pill-read { background: var(--canvas); color: var(--muted); border-color: var(--border); }
.pill-write { background: var(--warn-bg); color: var(--warn); }

.stat { display: flex; flex-direction: column; }
.stat b { font-size: 1.6rem; font-weight: 600; line-height: 1.2; font-variant-numeric: tabular-nums; }
.stat span { color: var(--muted); font-size: .85rem; }
.stats { display: flex; gap: 28px; flex-wrap: wrap; }
.bar { display: flex; height: 8px; border-radius: 4px; overflow: hidden; background: var(--canvas); margin: 10px 0 4px; }
.bar i { display: block; }
.bar .b-drafting { background: #afb8c1; } .bar .b-queued { background: #d4a72c; } .bar .b-active { background: #2da44e; } .bar .b-retired { background: #a475f9; }

.alarm { border: 1px solid #ff818266; background: var(--bad-bg); color: #82071e; border-radius: var(--radius); padding: 10px 14px; }
.notice { border: 1px solid #54aeff66; background: var(--accent-bg); border-radius: var(--radius); padding: 10px 14px; margin-bottom: 16px; }
.ok-text { color: var(--ok); } .bad-text { color: var(--bad); } .muted { color: var(--muted); } .faint { color: var(--faint); }
.small { font-size: .85rem; }
.mark { display: inline-block; position: relative; width: 1em; height: 1em; border-radius: 50%; vertical-align: -0.15em; margin-right: .3em; }
.mark-ok { background: var(--ok); }
.mark-ok::after { content: ""; position: absolute; left: .35em; top: .17em; width: .26em; height: .5em; border: solid #fff; border-width: 0 .13em .13em 0; transform: rotate(45deg); }
.mark-bad { background: var(--bad); }
.mark-bad::before, .mark-bad::after { content: ""; position: absolute; left: .44em; top: .2em; width: .13em; height: .6em; background: #fff; transform: rotate(45deg); }
.mark-bad::after { transform: rotate(-45deg); }
.mark-orb { width: .9em; height: .9em; margin: 0 .25em 0 0; background: radial-gradient(circle at 35% 30%, #f3e8ff 0 14%, #a475f9 42%, #4c2889 100%); }
.nowrap { white-space: nowrap; }
.ellipsis { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; max-width: 520px; display: inline-block; vertical-align: bottom; }

button, .button { font: inherit; font-size: .9rem; font-weight: 500; padding: 5px 14px; border-radius: var(--radius); border: 1px solid var(--border); background: var(--canvas); color: var(--fg); cursor: pointer; line-height: 20px; display: inline-block; }
button:hover, .button:hover { background: #eff2f5; text-decoration: none; }
button.primary { background: #1f883d; border-color: #1a7f37; color: #fff; }
button.primary:hover { background: #1a7f37; }
button.danger { color: var(--bad); }
button.danger:hover { background: var(--bad); color: #fff; border-color: var(--bad); }
form.inline { display: inline; margin: 0; }
.actions { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; }

label { display: block; font-weight: 600; margin-bottom: 4px; }
.hint { color: var(--muted); font-size: .85rem; font-weight: 400; }
input[type=text], input[type=search], input[type=number], input[type=password], select, textarea {
  font: inherit; width: 100%; padding: 5px 10px; border: 1px solid var(--border); border-radius: var(--radius); background: var(--bg); color: var(--fg); line-height: 20px; }
textarea { font-family: var(--mono); font-size: 13px; min-height: 64px; }
.field { margin-bottom: 12px; }
.fields { display: grid; grid-template-columns: repeat(auto-fit, minmax(160px, 1fr)); gap: 12px; align-items: end; }

.review-item { display: grid; grid-template-columns: 28px minmax(0, 1fr) minmax(220px, 300px); gap: 12px; padding: 14px 16px; border-top: 1px solid var(--border); }
.review-item:first-child { border-top: 0; }
.review-item .check { padding-top: 2px; }
.review-item .check input { width: 16px; height: 16px; }
.meta { color: var(--muted); font-size: .85rem; display: flex; gap: 10px; flex-wrap: wrap; align-items: center; }
.prose { white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0 8px; }
details.more { display: inline; }
details.more > summary { display: inline; cursor: pointer; color: var(--muted); }
details.more[open] > summary { display: block; }
.side { border-left: 1px solid var(--border); padding-left: 12px; font-size: .9rem; }
@media (max-width: 900px) { .review-item { grid-template-columns: 28px 1fr; } .side { grid-column: 2; border-left: 0; padding-left: 0; } }
.verdicts { list-style: none; padding: 0; margin: 4px 0 0; display: flex; flex-direction: column; gap: 4px; }

.diff { font-family: var(--mono); font-size: 12.5px; white-space: pre-wrap; overflow-wrap: anywhere; background: var(--bg); border: 1px solid var(--border); border-radius: var(--radius); padding: 10px 12px; }
.diff ins { background: var(--ok-bg); color: #116329; text-decoration: none; border-radius: 2px; }
.diff del { background: var(--bad-bg); color: #82071e; text-decoration: line-through; border-radius: 2px; }
.version { padding: 14px 16px; border-top: 1px solid var(--border); }
.version:first-child { border-top: 0; }
.version-head { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; margin-bottom: 8px; }
.hash { font-family: var(--mono); font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }

.tier + .tier { margin-top: 16px; }
.item { padding: 10px 16px; border-top: 1px solid var(--border); }
.item:first-child { border-top: 0; }
.because { color: var(--muted); font-size: .85rem; }
.because::before { content: "because: "; color: var(--faint); }
.synthesis { font-size: 1.02rem; border-left: 3px solid #a475f9; padding: 4px 12px; margin: 0; }
.timings td { padding: 4px 12px; }
.tree a[aria-current="true"] { font-weight: 600; }
.token-once { font-family: var(--mono); font-size: 14px; padding: 10px 12px; background: var(--bg); border: 1px dashed var(--warn); border-radius: var(--radius); user-select: all; overflow-wrap: anywhere; }
.signin { max-width: 420px; margin: 60px auto; }
.signin .box-body { padding: 20px; }
.error-page { max-width: 640px; margin: 40px auto; }
`;
