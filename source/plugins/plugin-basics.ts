import type { CollectedHooks } from '../user-hooks/hook-settings.js'

/**
 * The two things of the plugins a session uses whether or not it has any, kept apart from the plugin
 * modules so that a session without plugins does not load them (session-plugins-entry.ts).
 */

/** What a plugin's commands, hooks and MCP servers write for the plugin's folder. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's placeholder, not a template
export const PLUGIN_ROOT_VAR = '${CLAUDE_PLUGIN_ROOT}'

/** A session's hooks with the plugins' added after the settings files' (`disableAllHooks` stops both). */
export function withPluginHooks(settings: CollectedHooks, plugins: CollectedHooks): CollectedHooks {
  if (plugins.hooks.length === 0 && plugins.warnings.length === 0) return settings
  return {
    hooks: [...settings.hooks, ...plugins.hooks],
    disabledBy: settings.disabledBy,
    // The plugins' own warnings are the session's plugin warnings (loadSessionPlugins).
    warnings: settings.warnings,
  }
}
