// The turns of the embedded sample session (see make-sample-session.mjs): what
// the user asks, what the agent says, and which tools it calls. Tool outputs
// are made from real files by the functions in `tools`; the words of the user
// and the agent are the only text written here.

const call = (name, args, output) => ({ name, args, output });

export function story({ tools, postcssVersion }) {
  const { readFileTool, grep, listDir, testLog, unifiedDiff, fixtureCss, astJson, lineOf } = tools;
  const read = (path) => call("read_file", { path }, () => readFileTool(path));
  const run = (command, output) => call("run", { command, cwd: "/home/dev/postcss" }, () => output);

  const parserLine = lineOf("lib/parser.js", "  decl(tokens, customProperty) {");
  const rawLine = lineOf("lib/parser.js", "  raw(node, prop, tokens, customProperty) {");
  const failure = [
    "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:",
    "+ actual - expected",
    "",
    "  {",
    "+   column: 42,",
    "-   column: 41,",
    "    line: 2,",
    "+   offset: 55",
    "-   offset: 54",
    "  }",
    "",
    "    at TestContext.<anonymous> (file:///home/dev/postcss/test/parse.test.js:214:12)",
    `    at Parser.decl (/home/dev/postcss/lib/parser.js:${parserLine + 12}:27)`,
    `    at Parser.other (/home/dev/postcss/lib/parser.js:${lineOf("lib/parser.js", "  other(start) {") + 40}:14)`,
    `    at Parser.parse (/home/dev/postcss/lib/parser.js:${lineOf("lib/parser.js", "  parse() {") + 30}:16)`,
    "    at parse (/home/dev/postcss/lib/parse.js:11:12)",
    "    at async Test.run (node:internal/test_runner/test:1054:7) {",
    "  generatedMessage: true,",
    "  code: 'ERR_ASSERTION',",
    "  actual: { column: 42, line: 2, offset: 55 },",
    "  expected: { column: 41, line: 2, offset: 54 },",
    "  operator: 'deepStrictEqual'",
    "}",
  ].join("\n");
  const baselineFails = { "Parser decl() preserves source positions": failure };
  const fixture = fixtureCss();
  const patch = unifiedDiff("lib/parser.js", [
    {
      after: "  decl(tokens, customProperty) {",
      from: "    node.source.end = this.getPosition(",
      remove: 3,
      to: [
        "    // A trailing comment belongs to the raws, not to the declaration's",
        "    // own span: end the source at the last token that is not one.",
        "    let end = tokens.length",
        "    while (end > 1 && tokens[end - 1][0] === 'comment') end--",
        "    let endToken = tokens[end - 1]",
        "    node.source.end = this.getPosition(",
        "      endToken[3] || endToken[2] || findLastWithPosition(tokens.slice(0, end))",
        "    )",
      ],
    },
  ]);
  const typesEdits = [
    {
      from: "     * Declaration value with comments.",
      remove: 1,
      to: [
        "     * Declaration value with comments, as written, when it differs from",
        "     * `value`. A trailing comment is kept here and is not part of the",
        "     * declaration's `source` span.",
      ],
    },
  ];
  const typesPatch = unifiedDiff("lib/declaration.d.ts", typesEdits);

  const system = [
    "You are Kestrel, a coding agent working in the user's repository at /home/dev/postcss (a checkout of postcss " +
      `${postcssVersion}). You have these tools: read_file(path), list_dir(path), grep(pattern, path), run(command, cwd) ` +
      "and apply_patch(patch).",
    "",
    "How to work:",
    "- Read the code before you change it. Quote exact file paths and line numbers when you explain something.",
    "- Prefer the smallest change that fixes the problem. Do not reformat code you did not change.",
    "- Run the relevant tests after every change and report failures verbatim.",
    "- Never run commands that need the network, and never push, publish or tag.",
    "- When you are unsure what the user wants, ask one short question instead of guessing.",
    "- Keep answers short: what you found, what you changed, what is left.",
  ].join("\n");

  const turns = [
    {
      user:
        "I'm getting wrong source positions for declarations that end in a comment. For `a { color: red /* brand */ }` " +
        "the declaration's `source.end` points past the comment, so the source map maps the whole comment to `color`. " +
        "Can you find where the parser decides where a declaration ends? Don't change anything yet.",
      steps: [
        {
          text: "I'll start with the layout of lib/ and where comments are handled.",
          calls: [
            call("list_dir", { path: "lib" }, listDir),
            call("grep", { pattern: "comment", path: "lib" }, () => grep("comment")),
            read("package.json"),
          ],
        },
        { text: null, calls: [read("lib/parser.js"), read("lib/tokenize.js"), read("lib/node.js")] },
      ],
      reply:
        `The end of a declaration is set in \`Parser#decl\` (lib/parser.js:${parserLine + 10}-${parserLine + 13}): it takes ` +
        "the last token of the declaration (after dropping a trailing `;`) and uses its end position, falling back to " +
        "`findLastWithPosition(tokens)`. Trailing comments are still in `tokens` at that point: they are only moved into " +
        `the raws later, in \`Parser#raw\` (lib/parser.js:${rawLine}), which builds \`raws.value.raw\`. So for ` +
        "`color: red /* brand */` the end is the end of the comment token. The tokenizer (lib/tokenize.js) emits the " +
        "comment as one `comment` token with start and end offsets, so the fix belongs in `decl`, not in the tokenizer.",
    },
    {
      user: "Run the unit tests first so we have a baseline. I added a failing test for this in test/parse.test.js.",
      steps: [{ text: null, calls: [run("pnpm unit", `> postcss@${postcssVersion} unit /home/dev/postcss\n> node --test test/\n\n${testLog(baselineFails)}`)] }],
      reply:
        "Baseline: one failure, your new test `Parser decl() preserves source positions`: the end column is 42 where " +
        "41 is expected, i.e. the end of the comment instead of the end of `red`. Everything else passes.",
    },
    {
      user:
        "Before fixing it, check how the stringifier writes raws back. I don't want to break round-tripping of " +
        "comments.",
      steps: [
        { text: null, calls: [read("lib/stringifier.js"), read("lib/stringifier.d.ts"), read("lib/declaration.js"), read("lib/comment.js")] },
        { text: "Now every place that reads `raws.value`:", calls: [call("grep", { pattern: "raws\\.value|rawValue", path: "lib" }, () => grep("raws\\.value|rawValue"))] },
      ],
      reply:
        "Round-tripping does not depend on `source.end`. `Stringifier#decl` writes `raws.between` and then " +
        "`rawValue(node, 'value')`, which returns `raws.value.raw` whenever its `value` still equals `node.value`, so the " +
        "comment is printed back from the raws. `source` is only read by the map generator and by error messages. " +
        "Changing where `source.end` points is safe for stringifying.",
    },
    {
      user: "Dump the AST for my fixture so we can see what the raws look like today.",
      steps: [
        {
          text: "The fixture first, then the AST as postcss's own toJSON prints it:",
          calls: [
            call("read_file", { path: "test/fixtures/comments-in-values.css" }, () => tools.numbered(fixture)),
            run("node scripts/dump-ast.mjs test/fixtures/comments-in-values.css", astJson(fixture)),
          ],
        },
      ],
      reply:
        "In the AST the first declaration keeps its leading comment in `raws.between` (`\": /* brand */ \"`) and its " +
        "value is clean. The second, `text-decoration: none /* underline on hover */;`, has `value: \"none \"` with the " +
        "comment in `raws.value.raw`, and its `source.end` is line 3, column 51: past the comment. Only trailing " +
        "comments are affected.",
    },
    {
      user: "OK, make the fix in the parser. Keep it minimal.",
      steps: [
        { text: "Applying the change to `Parser#decl`:", calls: [call("apply_patch", { patch }, () => "Applied patch to lib/parser.js: 1 hunk, +8 -3.")] },
        { text: null, calls: [run("pnpm unit", `> postcss@${postcssVersion} unit /home/dev/postcss\n> node --test test/\n\n${testLog()}`)] },
      ],
      reply:
        "Fixed: `decl` now ends the declaration's source at the last token that is not a comment, and the comment stays " +
        "in `raws.value.raw` as before. The whole unit suite passes, your new test included.",
    },
    {
      user: "Show me the full diff and run the type tests too.",
      steps: [
        {
          text: null,
          calls: [
            run("git diff", patch),
            run("pnpm test:types", `> postcss@${postcssVersion} test:types /home/dev/postcss\n> check-dts\n\n✔ Check types (${
              tools.source("package.json").length % 7 + 41
            } files, 3 test files)`),
          ],
        },
      ],
      reply: "That is the whole diff: one hunk in lib/parser.js. The type tests pass.",
    },
    {
      user: "Do source maps come out right now? Look at map-generator and previous-map.",
      steps: [{ text: null, calls: [read("lib/map-generator.js"), read("lib/previous-map.js"), read("lib/input.js"), read("lib/input.d.ts"), read("lib/css-syntax-error.js")] }],
      reply:
        "Yes. `MapGenerator#generateString` adds a mapping at each node's `source.start` and, for nodes with " +
        "`source.end`, one more at the end position; with the fix the end mapping of the declaration lands after `none` " +
        "and the comment gets no mapping of its own, which is what the other comment cases already do. " +
        "`PreviousMap` only reads annotations and inline maps and is not affected.",
    },
    {
      user:
        "What about the async path: does LazyResult re-parse or reuse the root? I want to know whether plugins see " +
        "the new positions.",
      steps: [
        { text: null, calls: [read("lib/lazy-result.js"), read("lib/lazy-result.d.ts"), read("lib/no-work-result.js")] },
        { text: null, calls: [read("lib/processor.js"), read("lib/processor.d.ts"), read("lib/result.d.ts")] },
        { text: "And where the walkers are used:", calls: [call("grep", { pattern: "walk", path: "lib" }, () => grep("walk"))] },
      ],
      reply:
        "`LazyResult` parses once, in its constructor through `parse(css, opts)`, and every plugin gets the same root. " +
        "`NoWorkResult` (used when there are no plugins) parses lazily on the first access to `root`. Either way the " +
        "positions plugins see come from the fixed `decl`, so they see the new end.",
    },
    {
      user: "Update the typings docs for `raws.value` in declaration.d.ts, and check node.d.ts says the same thing.",
      steps: [
        { text: null, calls: [read("lib/declaration.d.ts"), read("lib/node.d.ts")] },
        { text: null, calls: [call("apply_patch", { patch: typesPatch }, () => "Applied patch to lib/declaration.d.ts: 1 hunk, +3 -1.")] },
      ],
      reply:
        "I documented `DeclarationRaws.value` in lib/declaration.d.ts. node.d.ts only describes `source` in general " +
        "terms (`start` and `end` of the node in the input), which stays true, so I left it alone.",
    },
    {
      user: "Run everything once more: unit, types and lint.",
      steps: [
        {
          text: null,
          calls: [
            run(
              "pnpm test",
              `> postcss@${postcssVersion} test /home/dev/postcss\n> pnpm run /^test:/ && pnpm unit\n\n` +
                `> postcss@${postcssVersion} test:lint /home/dev/postcss\n> eslint .\n\n` +
                `> postcss@${postcssVersion} test:types /home/dev/postcss\n> check-dts\n\n✔ Check types\n\n` +
                `> postcss@${postcssVersion} unit /home/dev/postcss\n> c8 node --test test/\n\n${testLog()}\n\n${tools.coverage()}`,
            ),
          ],
        },
      ],
      reply: "All green: lint, types and every unit test.",
    },
    {
      user:
        "Last thing: check container.js and container.d.ts for the same problem with comments at the end of a " +
        "block (`walkComments`, `each`), then summarise what we changed.",
      steps: [
        { text: "Reading both files:", calls: [read("lib/container.js"), read("lib/container.d.ts"), read("lib/root.d.ts")] },
        { text: "The node typings and the other containers, to see what `source` promises:", calls: [read("lib/node.d.ts"), read("lib/rule.d.ts"), read("lib/at-rule.d.ts"), read("lib/document.d.ts")] },
        { text: "And the two typings we touched, as they are now:", calls: [
            call("read_file", { path: "lib/declaration.d.ts" }, () => tools.numbered(tools.patchedSource("lib/declaration.d.ts", typesEdits))),
            read("lib/comment.d.ts"),
          ],
        },
        { text: null, calls: [call("grep", { pattern: "source\\.end|getPosition", path: "lib" }, () => grep("source\\.end|getPosition"))] },
      ],
    },
  ];
  return { system, turns };
}
