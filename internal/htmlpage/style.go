package htmlpage

// css is the page's only style: system fonts, tables that read and paste
// as tables, untrusted numbers marked in colour and with a sign that
// survives printing in black and white.
const css = `
body { font-family: system-ui, sans-serif; margin: 1.5em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
p.sub { color: #555; margin-top: 0; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; }
section { margin-top: 2em; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; vertical-align: top; }
th { background: #f2f2f2; }
td.text, th.text { text-align: left; }
td.untrusted { background: #fde8e8; }
td.untrusted::after { content: " !"; font-weight: bold; color: #b00; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.facts dt { font-weight: bold; }
dl.facts dd { margin: 0; }
figure { margin: 1em 0; page-break-inside: avoid; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; }
figcaption { color: #555; font-size: 0.9em; }
ul.warnings li { color: #900; }
@media print {
  nav { display: none; }
  body { max-width: none; margin: 0; }
  td.untrusted { background: none; }
}
`
