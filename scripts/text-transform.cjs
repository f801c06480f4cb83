// Jest's transform for files the bundle loads as text (esbuild's `text` loader in scripts/build.mjs):
// the module's default export is the file's content.
module.exports = {
  process(source) {
    return { code: `module.exports = ${JSON.stringify(source)};` };
  },
};
