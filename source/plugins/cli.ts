import { homedir } from 'node:os'
import { resolvePaths } from '../config/app-paths.js'
import { cleanedWriter, type TextWriter } from '../util/display-text.js'
import { describeComponents } from './components.js'
import { addMarketplace, installPlugin, readInstalled, removePlugin, setEnabled } from './install.js'
import { readMarketplace } from './marketplace.js'
import { PluginError, readRegistry } from './registry.js'

/**
 * `agent-tui plugin …` (docs/plugins.md): install, list, remove, enable and disable plugins, and add
 * marketplaces. Runs before any settings, provider or UI is loaded (source/cli.ts dispatches here).
 */

export const PLUGIN_USAGE = `usage:
  agent-tui plugin add <path | git-url | name@marketplace> [--enable]
  agent-tui plugin list
  agent-tui plugin enable <name>
  agent-tui plugin disable <name>
  agent-tui plugin remove <name>
  agent-tui plugin marketplace add <path | git-url>
  agent-tui plugin marketplace list [name]`

export async function runPluginCommand(argv: readonly string[]): Promise<number> {
  // `agent-tui plugin list | head`: a closed pipe ends the listing, not with a stack trace.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0)
    throw error
  })
  // What is printed quotes plugin files: cleaned (util/display-text.ts).
  const out = cleanedWriter(process.stdout)
  const err = cleanedWriter(process.stderr)
  const env = process.env
  const paths = resolvePaths(env, env.HOME || homedir())
  const cwd = process.cwd()
  const [verb, ...rest] = argv
  const flags = rest.filter((a) => a.startsWith('--'))
  const words = rest.filter((a) => !a.startsWith('--'))
  const unknown = flags.filter((f) => !(verb === 'add' && f === '--enable'))
  const usage = () => {
    err.write(`${PLUGIN_USAGE}\n`)
    return 2
  }
  if (unknown.length) {
    err.write(`agent-tui plugin: unknown option ${unknown[0]}\n`)
    return usage()
  }
  try {
    switch (verb) {
      case 'add': {
        if (words.length !== 1) return usage()
        const enable = flags.includes('--enable')
        const installed = await installPlugin(paths, words[0] as string, { cwd, enable })
        const version = installed.manifest.version ? ` ${installed.manifest.version}` : ''
        out.write(`Installed plugin ${installed.name}${version} in ${installed.root}. It brings:\n`)
        out.write(`${describeComponents(installed.name, installed.components).join('\n')}\n`)
        for (const warning of installed.warnings) out.write(`  warning: ${warning}\n`)
        out.write(
          enable
            ? 'Enabled: new sessions load it.\n'
            : `It is not enabled: nothing of it loads until you run  agent-tui plugin enable ${installed.name}\n`,
        )
        return 0
      }
      case 'list': {
        const registry = readRegistry(paths)
        const names = Object.keys(registry.plugins).sort()
        if (names.length === 0) out.write('No plugins installed (agent-tui plugin add <path | git-url>).\n')
        for (const name of names) {
          const entry = registry.plugins[name]
          if (!entry) continue
          out.write(
            `${name}${entry.version ? ` ${entry.version}` : ''}  ${entry.enabled ? 'enabled' : 'disabled'}  from ${entry.source}\n`,
          )
          try {
            out.write(
              `${describeComponents(name, (await readInstalled(paths, name)).components).join('\n')}\n`,
            )
          } catch (error) {
            out.write(`  problem: ${(error as Error).message}\n`)
          }
        }
        const markets = Object.keys(registry.marketplaces)
        if (markets.length) out.write(`Marketplaces: ${markets.join(', ')}\n`)
        return 0
      }
      case 'enable':
      case 'disable': {
        if (words.length !== 1) return usage()
        const name = words[0] as string
        setEnabled(paths, name, verb === 'enable')
        if (verb === 'enable') {
          out.write(`Enabled plugin ${name}: new sessions load what it brings:\n`)
          out.write(`${describeComponents(name, (await readInstalled(paths, name)).components).join('\n')}\n`)
        } else out.write(`Disabled plugin ${name}: new sessions do not load it.\n`)
        return 0
      }
      case 'remove': {
        if (words.length !== 1) return usage()
        await removePlugin(paths, words[0] as string)
        out.write(`Removed plugin ${words[0]}.\n`)
        return 0
      }
      case 'marketplace':
        return await marketplaceCommand(words, { out, paths, cwd, usage })
      default:
        return usage()
    }
  } catch (error) {
    if (!(error instanceof PluginError)) throw error
    err.write(`agent-tui plugin: ${error.message}\n`)
    return 1
  }
}

async function marketplaceCommand(
  words: string[],
  ctx: { out: TextWriter; paths: ReturnType<typeof resolvePaths>; cwd: string; usage(): number },
): Promise<number> {
  const [verb, arg] = words
  if (verb === 'add' && arg && words.length === 2) {
    const added = await addMarketplace(ctx.paths, arg, { cwd: ctx.cwd })
    ctx.out.write(
      `Added marketplace ${added.name} (${added.plugins} plugins). Install one with  agent-tui plugin add <name>@${added.name}\n`,
    )
    return 0
  }
  if (verb === 'list' && words.length <= 2) {
    const registry = readRegistry(ctx.paths)
    const names = arg ? [arg] : Object.keys(registry.marketplaces).sort()
    if (names.length === 0)
      ctx.out.write('No marketplaces added (agent-tui plugin marketplace add <path | git-url>).\n')
    for (const name of names) {
      const entry = registry.marketplaces[name]
      if (!entry) throw new PluginError(`no marketplace named ${name} is added`)
      const listed = await readMarketplace(entry.root)
      ctx.out.write(`${name}  from ${entry.source}\n`)
      for (const plugin of listed.plugins)
        ctx.out.write(
          `  ${plugin.name}@${name}${plugin.installable ? '' : ` (not installable here: ${plugin.why})`}\n`,
        )
    }
    return 0
  }
  return ctx.usage()
}
