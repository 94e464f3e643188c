import { z } from 'zod'
import { defineTool, type RuntimeSettingsApi, type Tool, ToolError, type ToolSuccess } from './types.js'

/** A setting as the Config tool's description lists it. */
export interface SettingInfo {
  name: string
  description: string
}

/** The description lists exactly the settings the session accepts, from the same table. */
function describe(settings: readonly SettingInfo[]): string {
  const list =
    settings.length === 0
      ? '- No settings can be changed in this session.'
      : `- Settings: ${settings.map((s) => `${s.name} (${s.description})`).join('; ')}. An unknown name returns the list.`
  return `Reads or changes a runtime setting of this session.
- Without value: returns the setting's current value. With value: changes it and confirms.
${list}
- Permissions (mode, allow/deny/ask rules, bypass) cannot be changed with this tool; only the user can change them.
- Change settings only when the user asks for it or clearly benefits.`
}

const schema = z.strictObject({
  setting: z.string().min(1).describe('Name of the setting, e.g. "model"'),
  value: z
    .union([z.string(), z.number(), z.boolean()])
    .optional()
    .describe('The new value; omit it to read the current value'),
})

export type ConfigArgs = z.infer<typeof schema>

/** Whole names (after normalising) that concern permissions. */
const PERMISSION_NAMES = new Set([
  'mode',
  'defaultmode',
  'permissionmode',
  'permissions',
  'permission',
  'allow',
  'deny',
  'ask',
  'rules',
  'rule',
  'allowedtools',
  'disallowedtools',
  'bypass',
  'yolo',
  'dangerous',
  'dangerouslyskippermissions',
  'skippermissions',
  'autoapprove',
  'approvalmode',
  'approvalpolicy',
  'sandbox',
  'trust',
  'ci',
])

/** Fragments that mark a name as permission-related wherever they appear. */
const PERMISSION_FRAGMENTS = ['permission', 'bypass', 'yolo', 'dangerous', 'approv', 'consent', 'sandbox']

/**
 * Whether `setting` concerns permissions: the mode, rules, bypass flags or consent. Checked on a
 * normalised form (case, `-`, `_` and spaces ignored) and per dotted segment, so `permissions.allow`,
 * `Default-Mode` and `tools.deny` are all caught.
 */
export function isPermissionSetting(setting: string): boolean {
  const normalized = setting.toLowerCase().replace(/[\s_-]+/g, '')
  if (PERMISSION_FRAGMENTS.some((fragment) => normalized.includes(fragment))) return true
  return [normalized.replace(/\./g, ''), ...normalized.split(/[.[\]/:]+/)].some((part) =>
    PERMISSION_NAMES.has(part),
  )
}

const normalize = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '')

/** The listed setting `name` refers to, tolerating case and `_`/`-` (observation_window). */
function resolveName(settings: RuntimeSettingsApi, name: string): string {
  const available = settings.list()
  const exact = available.find((s) => s.name === name)
  if (exact) return exact.name
  const loose = available.filter((s) => normalize(s.name) === normalize(name))
  if (loose.length === 1 && loose[0]) return loose[0].name
  const listing =
    available.length === 0
      ? 'No settings can be changed in this session.'
      : `Available settings:\n${available.map((s) => `- ${s.name} = ${JSON.stringify(s.value)}: ${s.description}`).join('\n')}`
  throw new ToolError('not_found', `unknown setting "${name}". ${listing}`)
}

/**
 * The Config tool: reads or sets whitelisted runtime settings; never anything about permissions.
 * `settings` are the ones the session offers (the runtime's table), for the description.
 */
export function createConfigTool(settings: readonly SettingInfo[]): Tool<ConfigArgs> {
  return defineTool<ConfigArgs>({
    name: 'Config',
    description: describe(settings),
    schema,
    risk: 'config',
    isReadOnly: (args) => args.value === undefined,
    permissionTarget: () => ({ kind: 'none' }),
    preview: async (args) => ({
      kind: 'json',
      text:
        args.value === undefined ? `read ${args.setting}` : `${args.setting} = ${JSON.stringify(args.value)}`,
    }),
    summarize: (args) =>
      args.value === undefined
        ? `Config ${args.setting}`
        : `Config ${args.setting} = ${JSON.stringify(args.value)}`,
    async execute(args, ctx): Promise<ToolSuccess> {
      // Refused before the settings are touched: the model must never raise its own permissions.
      if (isPermissionSetting(args.setting)) {
        throw new ToolError(
          'permission',
          `"${args.setting}" cannot be changed by the model; only the user can change permissions (Shift+Tab or /mode)`,
          { hint: 'Do not try other names for it. If you need a different mode or a rule, ask the user.' },
        )
      }
      const { settings } = ctx
      if (!settings) {
        throw new ToolError('execution', 'runtime settings are not available in this session', {
          hint: 'Continue with the current settings, or ask the user to change them.',
        })
      }
      const name = resolveName(settings, args.setting)
      if (args.value === undefined) {
        const entry = settings.list().find((s) => s.name === name)
        const text = `${name} = ${JSON.stringify(settings.get(name))}`
        return {
          forModel: entry ? `${text} (${entry.description})` : text,
          display: { kind: 'text', text },
        }
      }
      const message = settings.set(name, args.value)
      return { forModel: message, display: { kind: 'text', text: message } }
    },
  })
}

/** A Config tool without a settings list in its description (tests that only execute it). */
export const configTool = createConfigTool([])
