// Loads an askdocs Lunr index with lunr.js (+ lunr-languages) and runs term queries,
// exactly as the widget's offline search does. Prints [[ref, score], ...] per query.
const fs = require("fs");
const lunr = require("lunr");
require("lunr-languages/lunr.stemmer.support")(lunr);
require("lunr-languages/lunr.es")(lunr);

const [indexPath, queriesPath] = process.argv.slice(2);
const idx = lunr.Index.load(JSON.parse(fs.readFileSync(indexPath, "utf8")));
const queries = JSON.parse(fs.readFileSync(queriesPath, "utf8"));
const out = queries.map((terms) =>
  idx.query((q) => terms.forEach((t) => q.term(t))).map((r) => [r.ref, r.score])
);
process.stdout.write(JSON.stringify(out));
