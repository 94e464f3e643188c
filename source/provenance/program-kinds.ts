/**
 * How programs find the code they run, as footprint.ts needs to know it: tables only.
 */

/** Programs that run a script they are given; the value is the flags that take code (or a module) instead. */
export const INTERPRETERS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    node: '-e --eval -p --print',
    nodejs: '-e --eval -p --print',
    bun: '-e --eval -p --print',
    tsx: '-e --eval -p --print',
    'ts-node': '-e --eval -p --print',
    python: '-c -m',
    ruby: '-e',
    perl: '-e -E',
    php: '-r',
    lua: '-e',
    bash: '-c -s',
    sh: '-c -s',
    zsh: '-c -s',
    dash: '-c -s',
    ksh: '-c -s',
    fish: '-c',
  }).map(([name, flags]) => [name, new Set(flags.split(' '))]),
)

/** `python3.12` is `python`, `pypy3` is not (it is listed where it matters). */
export function interpreterName(name: string): string {
  return /^python[\d.]*$/.test(name) ? 'python' : name
}

/** Shells whose `-c` script is read like a hook's own. */
export const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh'])

/** Interpreter options that take a value which is not the script. */
export const VALUE_OPTIONS = new Set(['-W', '-X', '-I', '-o', '-O', '--input-type', '--conditions', '-C'])

/** Options that name a module or file loaded first (`node -r ./x.js`, `--import`). */
export const PRELOAD_OPTIONS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader'])

/** Package runners: a bin from node_modules/.bin first, or a package.json script. */
export const RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'npm', 'pnpm', 'yarn', 'bun'])
/** Runners whose first word is the bin itself. */
export const DIRECT_RUNNERS = new Set(['npx', 'pnpx', 'bunx'])
/** Subcommands that run a bin rather than a package.json script. */
export const BIN_SUBCOMMANDS = new Set(['exec', 'x', 'dlx'])
/** Subcommands that run no project code. */
export const QUIET_SUBCOMMANDS = new Set([
  '--version',
  '-v',
  'view',
  'info',
  'ls',
  'list',
  'outdated',
  'whoami',
])

/** Programs that run the project's own code whatever their arguments (build files, tests, tasks). */
export const PROJECT_RUNNERS = new Set(
  (
    'make gmake just rake task gradle gradlew mvn mvnw cargo go dotnet tox nox pytest py.test jest vitest ' +
    'mocha turbo nx lerna poetry uv uvx pipenv hatch bundle composer mix swift deno'
  ).split(' '),
)

/** Programs that load no code from the folder they run in, so its config files do not matter to them. */
export const NO_PROJECT_CODE = new Set(
  (
    'cat echo printf jq yq grep egrep fgrep rg sed awk gawk head tail wc sort uniq cut tr tee ls date sleep ' +
    'true false test [ [[ mkdir rmdir rm cp mv touch ln chmod chown basename dirname realpath readlink stat ' +
    'env printenv xargs timeout nice nohup time notify-send osascript say terminal-notifier curl wget ' +
    'whoami hostname uname id pwd diff cmp find sha1sum sha256sum md5sum base64 gzip gunzip tar zip unzip ' +
    'paplay afplay aplay tput logger git'
  ).split(' '),
)

/** Shell builtins and keywords: nothing on disk runs (`eval`, `source` and `.` run code: see footprint.ts). */
export const BUILTINS = new Set(
  (
    'cd echo printf test [ [[ true false exit return export set unset read wait kill trap shift local ' +
    'declare typeset type : alias unalias let pushd popd dirs umask ulimit times getopts hash help history ' +
    'jobs fg bg disown shopt enable caller complete compgen readonly'
  ).split(' '),
)
/** Builtins that run code they are given or read. */
export const CODE_BUILTINS = new Set(['eval', 'source', '.'])

/** What package runners read from the folders they run in, and every folder above. */
export const RUNNER_CONFIG = [
  'package.json',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'bunfig.toml',
]
/** Folders runners load code from (Yarn's `yarnPath` and plugins). */
export const RUNNER_DIRS = ['.yarn']

/** Config files tools load code from, or that name code to load, matched by name in each folder. */
export const CODE_CONFIG =
  /^(\.[\w.-]*rc(\.\w+)?|[\w.-]+\.config\.\w+|package\.json|\.npmrc|\.yarnrc(\.yml)?|\.pnpmfile\.cjs|bunfig\.toml|deno\.jsonc?|tsconfig[\w.-]*\.json|conftest\.py|setup\.py|noxfile\.py|pyproject\.toml|setup\.cfg|tox\.ini|[Mm]akefile|GNUmakefile|[Jj]ustfile|Rakefile|Gemfile|build\.rs|\.envrc|\.env(\.[\w.-]+)?|sitecustomize\.py|usercustomize\.py)$/
