// Bundles the CLI into one ESM file: start-up is dominated by module loading, and one bundled file loads
// several times faster than node_modules (see shared STACK.md).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { beyondLatin1 } from './one-byte-sources.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
// Taken before anything is read: a source saved while the build runs makes the next start rebuild.
const startedAt = Date.now()
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'))
await rm(join(root, 'dist'), { recursive: true, force: true })
const stubDir = join(root, 'dist', '.stubs')
await mkdir(stubDir, { recursive: true })
// ink imports react-devtools-core only when DEV is set; marking it external breaks at run time.
await writeFile(join(stubDir, 'react-devtools-core.js'), 'export default { connectToDevTools() {} }\n')

/**
 * yoga-layout (Ink's layout engine) embeds its WebAssembly as a base64 data: URL and, being built for
 * browsers too, reads it with `fetch` when fetch exists. In Node that first touch of `fetch` loads undici
 * (~20 ms) just to decode a string, on the way to the first frame. Hiding fetch from that loader makes it
 * decode the data URL directly, as it does where fetch is absent.
 */
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(builder) {
    builder.onLoad(
      { filter: /yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ },
      async (args) => {
        const source = await readFile(args.path, 'utf8')
        const patched = source.replaceAll('"function"!=typeof fetch', 'true')
        if (patched === source)
          throw new Error(`${args.path}: its fetch check changed; update yogaWithoutFetch`)
        return { contents: patched, loader: 'js' }
      },
    )
  },
}

/**
 * zod's namespace object re-exports every locale (≈ 300 KB of the 440 KB zod adds to the bundle), so
 * bundling cannot drop them although only English error messages are ever used. They are parsed and
 * evaluated on the way to the first frame; the locale index is cut down to English.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onLoad({ filter: /zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8')
      if (!source.includes('export { default as en } from "./en.js";'))
        throw new Error(`${args.path}: its English export changed; update zodEnglishOnly`)
      return { contents: 'export { default as en } from "./en.js";\n', loader: 'js' }
    })
  },
}

/**
 * The openai SDK reaches for undici's globals, and the first touch of any of them loads undici with
 * `http2`, `tls` and web streams (~5 MB of idle RSS, ~45 ms of CPU), although every request goes over
 * the provider's own `node:http` fetch. On a session's path: the workload-identity module reads
 * `Response.prototype` when it loads (for a login flow agent-tui never configures) and the event-stream
 * helpers note the global `Headers`; each request builds its headers in a `Headers` and asks whether its
 * body is a `FormData`. Those modules get the stand-ins of source/provider/sdk-globals.ts instead, and
 * `Response.prototype` is read when that login flow runs. A test runs a session's turn and checks that
 * undici stayed unloaded (test/e2e/undici-unloaded.test.ts).
 */
const sdkWithoutUndici = {
  name: 'sdk-without-undici',
  setup(builder) {
    const standIns = JSON.stringify(join(root, 'source', 'provider', 'sdk-globals.ts').replaceAll('\\', '/'))
    const shadow = (names) => (source) => `import { ${names} } from ${standIns};\n${source}`
    const edits = [
      {
        file: /openai[\\/]auth[\\/]workload-identity-auth\.mjs$/,
        expect: 'const NATIVE_RESPONSE_PROTOTYPE = Response.prototype;',
        apply: (source) =>
          source
            .replace(
              'const NATIVE_RESPONSE_PROTOTYPE = Response.prototype;\nconst READ_NATIVE_RESPONSE_BODY = NATIVE_RESPONSE_PROTOTYPE.arrayBuffer;\n',
              'let NATIVE_RESPONSE_PROTOTYPE;\nlet READ_NATIVE_RESPONSE_BODY;\n',
            )
            .replace(
              'async function parseOAuthTokenResponse(response) {\n',
              'async function parseOAuthTokenResponse(response) {\n    NATIVE_RESPONSE_PROTOTYPE ??= Response.prototype;\n    READ_NATIVE_RESPONSE_BODY ??= NATIVE_RESPONSE_PROTOTYPE.arrayBuffer;\n',
            ),
        // Read once, in the function: both replacements took.
        done: (patched) =>
          patched.split('Response.prototype').length === 2 && !patched.includes('const NATIVE'),
      },
      { file: /openai[\\/]internal[\\/]headers\.mjs$/, expect: 'new Headers()', apply: shadow('Headers') },
      {
        file: /openai[\\/]internal[\\/]utils[\\/]log\.mjs$/,
        expect: 'instanceof Headers',
        apply: shadow('Headers'),
      },
      {
        file: /openai[\\/]lib[\\/]EventStream\.mjs$/,
        expect: 'const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);',
        apply: (source) =>
          shadow('Headers')(
            source.replace(
              'const descriptor = Object.getOwnPropertyDescriptor(globalThis, name);',
              "const descriptor = name === 'Headers' ? { value: Headers } : Object.getOwnPropertyDescriptor(globalThis, name);",
            ),
          ),
        done: (patched) => patched.includes("name === 'Headers' ? { value: Headers }"),
      },
      {
        file: /openai[\\/]client\.mjs$/,
        expect: 'body instanceof FormData',
        apply: shadow('FormData'),
        // Only asked, never made: the stand-in cannot construct one.
        done: (patched) => !patched.includes('new FormData'),
      },
    ]
    for (const { file, expect, apply, done = () => true } of edits) {
      builder.onLoad({ filter: file }, async (args) => {
        const source = await readFile(args.path, 'utf8')
        const patched = apply(source)
        // The SDK changed under the edit: rather no build than undici back at idle unnoticed.
        if (!source.includes(expect) || !done(patched))
          throw new Error(`${args.path}: its use of undici's globals changed; update sdkWithoutUndici`)
        return { contents: patched, loader: 'js', resolveDir: dirname(args.path) }
      })
    }
  },
}

await build({
  entryPoints: [join(root, 'source', 'cli.ts')],
  outdir: join(root, 'dist'),
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  // AGENT_TUI_READABLE_BUILD=1 keeps names, for reading CPU profiles.
  minify: !process.env.AGENT_TUI_READABLE_BUILD,
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [yogaWithoutFetch, zodEnglishOnly, sdkWithoutUndici],
  alias: { 'react-devtools-core': join(stubDir, 'react-devtools-core.js') },
  // ripgrep resolves its binary from node_modules and throws at import when the platform package is missing.
  external: ['@vscode/ripgrep', '@lydell/node-pty'],
  define: { 'process.env.NODE_ENV': '"production"', AGENT_TUI_VERSION: JSON.stringify(pkg.version) },
  banner: {
    js: "import { createRequire as __agentTuiCreateRequire } from 'node:module'; const require = __agentTuiCreateRequire(import.meta.url);",
  },
})

const twoByte = await beyondLatin1(join(root, 'dist'))
if (twoByte.length) {
  throw new Error(
    `characters beyond Latin-1 in the bundle (V8 would hold each such file two bytes per character); escape them in the source (\\u2026):\n${twoByte.join('\n')}`,
  )
}

// What build-if-stale.mjs compares the inputs with (see there).
await writeFile(
  join(root, 'dist', '.build-stamp.json'),
  `${JSON.stringify({ startedAt, readable: Boolean(process.env.AGENT_TUI_READABLE_BUILD) })}\n`,
)
