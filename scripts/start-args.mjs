import { resolve } from 'node:path'

/**
 * The arguments `npm start` runs agent-tui with. npm runs scripts in the package folder and says where it
 * was started in INIT_CWD: that folder is the one to open, unless `--cwd` names another. Started in the
 * agent-tui folder itself without `--cwd`, it opens that folder and `hint` says how to open a project.
 */
export function startArgs(args, initCwd, root) {
  const end = args.indexOf('--')
  const options = end === -1 ? args : args.slice(0, end)
  if (!initCwd || options.some((a) => a === '--cwd' || a.startsWith('--cwd='))) return { args, hint: null }
  if (resolve(initCwd) !== resolve(root)) return { args: ['--cwd', initCwd, ...args], hint: null }
  const quiet = options.some((a) => ['--help', '-h', '--version', '-v', '-p', '--print'].includes(a))
  return {
    args,
    hint: quiet
      ? null
      : 'agent-tui: working in the agent-tui folder itself. To open your project: `npm start -- --cwd PATH`,\n' +
        `or \`npm --prefix ${root} start\` run from the project.`,
  }
}
