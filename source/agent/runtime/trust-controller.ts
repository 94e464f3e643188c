import type { SourcedRules } from '../../config/load.js'
import { appliesLive, type Contribution, groupContributions } from '../../config/project-contributions.js'
import { type ProjectTrust, tildePath } from '../../config/project-trust.js'
import { answerNotice, untrustedNotice } from '../../config/trust-messages.js'
import type { Store } from '../../store/create-store.js'
import type { Mode, TrustChoice, TrustRequest } from '../../store/domain.js'

/**
 * The live side of project trust in an interactive session: the one-time prompt, the notice naming what
 * is ignored, and applying an answer to the running session (the gate's rules are replaced and the mode
 * follows) without a restart. The prompt's data goes through the store; the dialog answers through the
 * runtime's `resolveTrust`, like the consent prompt.
 */

export interface TrustControllerOptions {
  trust: ProjectTrust
  store: Store
  /** Replaces the permission gate's configured rules. */
  setRules(rules: SourcedRules): void
  /** What the configuration would be with the folder trusted or not (rules and starting mode). */
  configFor(trusted: boolean): { rules: SourcedRules; mode: Mode }
  setMode(mode: Mode): void
  home: string
  newId(prefix: string): string
  now?: () => number
}

export interface TrustController {
  /**
   * At the start of an interactive session: the notice naming what is ignored, and the prompt when the
   * folder was never answered for and brings something trust would enable.
   */
  start(): Promise<void>
  /** `/trust`: opens the prompt whatever the current answer, so it can be changed. */
  review(): Promise<void>
  /** The dialog's answer. */
  resolve(id: string, choice: TrustChoice): Promise<void>
}

export function createTrustController(opts: TrustControllerOptions): TrustController {
  const { trust, store } = opts
  const now = opts.now ?? Date.now
  const display = (path: string) => tildePath(path, opts.home)
  const folder = display(trust.folder)
  const notice = (level: 'info' | 'warn' | 'error', text: string) =>
    store.dispatch({ type: 'notice/added', id: opts.newId('notice'), level, text })

  const request = (contributions: readonly Contribution[]): TrustRequest => {
    const status = trust.status()
    const parent = trust.parentToOffer()
    return {
      id: opts.newId('trust'),
      folder,
      parent: parent === null ? null : display(parent),
      broad: trust.isBroad(),
      current: status.trusted
        ? 'trusted'
        : status.source === 'none' || status.source === 'changed'
          ? 'undecided'
          : 'distrusted',
      groups: groupContributions(contributions),
      createdAt: now(),
    }
  }

  return {
    async start() {
      for (const warning of trust.warnings()) notice('warn', warning)
      const contributions = await trust.contributions()
      const text = untrustedNotice({
        contributions,
        status: trust.status(),
        folder,
        realFolder: trust.folder,
        display,
        storeLabel: display(trust.storeFile),
        headless: false,
      })
      if (text) notice('warn', text)
      // Never answered, or trusted for configuration that is no longer what it holds: ask.
      const source = trust.status().source
      if ((source === 'none' || source === 'changed') && contributions.length > 0) {
        store.dispatch({ type: 'trust/requested', request: request(contributions) })
      }
    },

    async review() {
      store.dispatch({ type: 'trust/requested', request: request(await trust.contributions()) })
    },

    async resolve(id, choice) {
      if (store.getState().trust?.id !== id) return
      store.dispatch({ type: 'trust/resolved', id })
      if (choice === 'later') {
        if (!trust.isTrusted())
          notice(
            'info',
            `${folder} stays untrusted for now; you will be asked at the next start (or /trust).`,
          )
        return
      }
      const wasTrusted = trust.isTrusted()
      const before = opts.configFor(wasTrusted)
      const { status, warning } = await trust.decide(choice)
      if (warning) notice('warn', warning)
      const after = opts.configFor(status.trusted)
      opts.setRules(after.rules)
      const [gained, lost] = [difference(after.rules, before.rules), difference(before.rules, after.rules)]
      // The mode follows only if the user has not changed it since it was set from the settings.
      let mode: Mode | undefined
      if (after.mode !== before.mode && store.getState().mode === before.mode) {
        opts.setMode(after.mode)
        mode = after.mode
      }
      // Only a change of answer changes anything; the same answer again just remembers it.
      const contributions = status.trusted === wasTrusted ? [] : await trust.contributions()
      // Allow rules and hooks apply at once (their own lines), MCP servers start (or stop) at once, commands
      // and skills load at once, the mode when it followed; the rest waits for the next start.
      const later = contributions.filter(
        (c) =>
          c.kind !== 'allow-rule' &&
          c.kind !== 'hook' &&
          c.kind !== 'mcp-server' &&
          !(c.key === 'mode' && mode !== undefined),
      )
      const hooksChanged = contributions.filter((c) => c.kind === 'hook').map((c) => c.label)
      const live = later.filter((c) => appliesLive(c.kind))
      const nextStart = later.filter((c) => !appliesLive(c.kind))
      notice(
        'info',
        answerNotice({
          status,
          folder,
          realFolder: trust.folder,
          display,
          rulesChanged: status.trusted ? gained : lost,
          hooksChanged,
          ...(mode ? { mode } : {}),
          live,
          nextStart,
        }),
      )
    },
  }
}

/** Allow rules of `a` that `b` lacks, by text. */
function difference(a: SourcedRules, b: SourcedRules): string[] {
  const known = new Set(b.allow.map((r) => r.text))
  return [...new Set(a.allow.map((r) => r.text).filter((text) => !known.has(text)))]
}
