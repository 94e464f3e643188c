import { join, relative, sep } from 'node:path'

/**
 * Files and folders whose contents run at a later start, outside any sandbox and unasked: a shell's
 * start-up files, the login session's, git's config, the folders the default PATH puts first, the
 * configuration of editors that run it, and a project's IDE settings. The one list of them, each with
 * what runs it. A Write, Edit, NotebookEdit or named shell write of one asks in every mode but dangerous
 * (protected-paths.ts), and the sandbox keeps them read-only where they lie in a writable root
 * (source/sandbox/start-up-fence.ts). Pure.
 *
 * Left out, judged: `.envrc` (direnv runs it only once allowed, and asks again when it changes), cron
 * (crontabs live in /var/spool, outside every writable root), `.ssh/` (hidden in the sandbox, and a
 * secrets store whose writes ask already), `.npmrc` (a secrets file: its writes ask already),
 * `.gitmodules` (git does not run a `.gitmodules` update command), and the rc files of tools used now and
 * then (psql, irb, gdb…). A home directory that is a writable root exposes more than any list: what these
 * files source (`~/.nvm/nvm.sh`) and every program on a PATH folder below it, so there the sandbox does
 * not hold (start-up-fence.ts) and auto mode asks before each command.
 */

export interface StartUpEntry {
  /** Below its base, `/`-separated. */
  path: string
  /**
   * The home directory, the config home (`$XDG_CONFIG_HOME`, else ~/.config), the data home
   * (`$XDG_DATA_HOME`, else ~/.local/share), or zsh's (`$ZDOTDIR`, and ~).
   */
  base: 'home' | 'config' | 'data' | 'zsh'
  kind: 'file' | 'dir'
  /** What runs it, for messages. */
  why: string
}

const LOGIN = 'a login shell runs it (a new terminal on macOS, ssh, the desktop session)'
const X_LOGIN = 'the next graphical login runs it'
const ON_PATH = 'the default ~/.profile puts it first on PATH: a program there stands in for the system one'
const ZSH = 'zsh runs it when it starts'

export const START_UP_ENTRIES: readonly StartUpEntry[] = [
  { path: '.bashrc', base: 'home', kind: 'file', why: 'bash runs it in every interactive shell' },
  { path: '.bash_profile', base: 'home', kind: 'file', why: LOGIN },
  { path: '.bash_login', base: 'home', kind: 'file', why: LOGIN },
  { path: '.profile', base: 'home', kind: 'file', why: LOGIN },
  { path: '.bash_logout', base: 'home', kind: 'file', why: 'a login shell runs it when it exits' },
  { path: '.bash_aliases', base: 'home', kind: 'file', why: "Debian's and Ubuntu's ~/.bashrc runs it" },
  { path: '.bashrc.d', base: 'home', kind: 'dir', why: "Fedora's ~/.bashrc runs what it holds" },
  { path: '.zshenv', base: 'zsh', kind: 'file', why: 'every zsh runs it, scripts included' },
  { path: '.zprofile', base: 'zsh', kind: 'file', why: ZSH },
  { path: '.zshrc', base: 'zsh', kind: 'file', why: ZSH },
  { path: '.zlogin', base: 'zsh', kind: 'file', why: ZSH },
  { path: '.zlogout', base: 'zsh', kind: 'file', why: 'zsh runs it when a login shell exits' },
  { path: 'fish', base: 'config', kind: 'dir', why: 'fish runs its config, conf.d and functions' },
  {
    path: '.inputrc',
    base: 'home',
    kind: 'file',
    why: 'its macros type and run commands when a key is pressed in bash',
  },
  {
    path: '.gitconfig',
    base: 'home',
    kind: 'file',
    why: 'git runs the programs it names: pager, editor, fsmonitor, hooks, aliases',
  },
  { path: 'git', base: 'config', kind: 'dir', why: 'git runs the programs its config names' },
  { path: 'bin', base: 'home', kind: 'dir', why: ON_PATH },
  { path: '.local/bin', base: 'home', kind: 'dir', why: ON_PATH },
  {
    path: '.pam_environment',
    base: 'home',
    kind: 'file',
    why: 'it sets the next login’s environment (LD_PRELOAD, PATH)',
  },
  {
    path: 'environment.d',
    base: 'config',
    kind: 'dir',
    why: 'it sets the next login’s environment (LD_PRELOAD, PATH)',
  },
  { path: '.xprofile', base: 'home', kind: 'file', why: X_LOGIN },
  { path: '.xinitrc', base: 'home', kind: 'file', why: X_LOGIN },
  { path: '.xsession', base: 'home', kind: 'file', why: X_LOGIN },
  { path: '.xsessionrc', base: 'home', kind: 'file', why: X_LOGIN },
  {
    path: 'autostart',
    base: 'config',
    kind: 'dir',
    why: 'the desktop starts what it lists at the next login',
  },
  {
    path: 'systemd/user',
    base: 'config',
    kind: 'dir',
    why: 'systemd starts the services it holds at the next login',
  },
  {
    path: 'Library/LaunchAgents',
    base: 'home',
    kind: 'dir',
    why: 'macOS starts what it lists at the next login',
  },
  { path: '.vimrc', base: 'home', kind: 'file', why: 'vim runs it when it starts' },
  { path: '.vim', base: 'home', kind: 'dir', why: 'vim runs its plugins when it starts' },
  { path: 'nvim', base: 'config', kind: 'dir', why: 'Neovim runs it when it starts' },
  { path: '.emacs', base: 'home', kind: 'file', why: 'Emacs runs it when it starts' },
  { path: '.emacs.d', base: 'home', kind: 'dir', why: 'Emacs runs it when it starts' },
  { path: '.tmux.conf', base: 'home', kind: 'file', why: 'tmux runs its commands when it starts' },
  { path: 'tmux', base: 'config', kind: 'dir', why: 'tmux runs its commands when it starts' },
  {
    path: 'Code/User',
    base: 'config',
    kind: 'dir',
    why: 'VS Code runs the tasks and programs its user settings name',
  },
  {
    path: 'agent-tui',
    base: 'data',
    kind: 'dir',
    why: 'agent-tui runs the hooks and MCP servers of the plugins installed there',
  },
]

/**
 * Folders a project holds at any depth whose contents run when the folder is opened. A repository's own
 * `.vscode/` is committed project configuration, and still what VS Code runs (its `tasks.json` with
 * `runOn: folderOpen`, the interpreters and tools its `settings.json` names) once the user opens the
 * folder: exactly "written unasked, runs later outside the sandbox", so it is protected in every project.
 */
export const PROJECT_START_UP: ReadonlyMap<string, string> = new Map([
  ['.vscode', 'VS Code runs its tasks and the programs its settings name when the folder is opened'],
  ['.idea', 'JetBrains IDEs run its run configurations and startup tasks when the project is opened'],
])

/** One entry at its absolute path, as the user would name it (`~/.bashrc`). */
export interface StartUpPath {
  path: string
  kind: 'file' | 'dir'
  why: string
  shown: string
}

export interface StartUpBases {
  home: string
  /** `$XDG_CONFIG_HOME` when set to an absolute path. */
  configHome?: string
  /** `$XDG_DATA_HOME` when set to an absolute path. */
  dataHome?: string
  /** `$ZDOTDIR` when set to an absolute path. */
  zdotdir?: string
}

/** Every entry at each base it may be read from. */
export function startUpPaths(bases: StartUpBases): StartUpPath[] {
  const config = bases.configHome ?? join(bases.home, '.config')
  const data = bases.dataHome ?? join(bases.home, '.local', 'share')
  const dirsOf = (entry: StartUpEntry): string[] => {
    if (entry.base === 'home') return [bases.home]
    if (entry.base === 'config') return [config]
    if (entry.base === 'data') return [data]
    // zsh reads ~/.zshenv before a ZDOTDIR it sets there takes effect.
    return bases.zdotdir && bases.zdotdir !== bases.home ? [bases.home, bases.zdotdir] : [bases.home]
  }
  return START_UP_ENTRIES.flatMap((entry) =>
    dirsOf(entry).map((dir) => {
      const path = join(dir, ...entry.path.split('/'))
      return { path, kind: entry.kind, why: entry.why, shown: shownFrom(bases.home, path) }
    }),
  )
}

/** The bases from an environment, as a sandbox or the session sees it. */
export function startUpBases(home: string, env: Readonly<Record<string, string | undefined>>): StartUpBases {
  const absolute = (value: string | undefined) => (value?.startsWith('/') ? value : undefined)
  const configHome = absolute(env.XDG_CONFIG_HOME)
  const dataHome = absolute(env.XDG_DATA_HOME)
  const zdotdir = absolute(env.ZDOTDIR)
  return {
    home,
    ...(configHome ? { configHome } : {}),
    ...(dataHome ? { dataHome } : {}),
    ...(zdotdir ? { zdotdir } : {}),
  }
}

function shownFrom(home: string, path: string): string {
  const rel = relative(home, path)
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep) ? `~/${rel.split(sep).join('/')}` : path
}
