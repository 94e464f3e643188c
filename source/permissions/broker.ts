import type { Dispatch } from '../store/create-store.js'
import type { ConsentDecision, ConsentPreview, ConsentRequest, Risk } from '../store/domain.js'
import { ruleCoversCommand } from './command-match.js'
import { matchRule, parseRule, type Rule, ruleCoversTool, splitRuleList } from './rules.js'
import type { PermissionTarget } from './target.js'

/**
 * The consent broker: turns "ask" decisions into promises the executor awaits and the UI (or the
 * headless policy) resolves. It is an app-owned instance; its state lives in the closure.
 */

/** A request as the executor files it. `target` lets a later "session"/"always" grant cover it. */
export type ConsentRequestInput = Omit<ConsentRequest, 'id' | 'createdAt'> & {
  target?: PermissionTarget
  readOnly?: boolean
}

/** Something saving a rule did besides (a `.gitignore` entry added), shown as a notice. */
export interface SaveNotice {
  level: 'info' | 'warn'
  text: string
}

/** A pending request as the policy sees it, for `recheck`. */
export interface PendingCall {
  tool: string
  risk: Risk
  target: PermissionTarget
  readOnly: boolean
}

export interface ConsentBrokerOptions {
  dispatch: Dispatch
  /** `deny-all` (headless): every request is denied at once and nothing is dispatched. */
  policy: 'interactive' | 'deny-all'
  /** Persists an "allow always" rule (to `.agent-tui/settings.local.json`). Failures become a notice. */
  onAlways?: (rule: string) => Promise<SaveNotice | undefined> | SaveNotice | undefined
  /** Source label of rules granted with "always" (the file they are saved to), for `/permissions`. */
  alwaysSource?: string
  /** Auto-deny after this many seconds; 0 or undefined waits forever. */
  timeoutSeconds?: number
  now?: () => number
  newId?: () => string
  /**
   * Re-judges a pending request after a grant added a session rule (the policy, now with that rule):
   * true settles it as allowed. Without it a request is settled when the rule covers it, which would
   * also let a grant settle a request that asked for another reason (a protected path).
   */
  recheck?: (call: PendingCall) => boolean
  /** Used to decide whether a new session rule covers other pending path requests. */
  workspace?: string
  home?: string
}

export interface ConsentBroker {
  /**
   * Files a request and resolves with the user's decision. Rejects with a ConsentAbortedError when
   * `signal` aborts first (the request is withdrawn from the store).
   */
  request(req: ConsentRequestInput, signal: AbortSignal): Promise<ConsentDecision>
  /**
   * Settles a pending request; false when the id is unknown (already settled). `session` and
   * `always` add the request's suggested rule to the session rules and settle every other pending
   * request the rule now covers; `always` also persists the rule through `onAlways`.
   */
  resolve(id: string, decision: ConsentDecision): boolean
  /** Pending requests, oldest first. */
  pending(): ConsentRequest[]
  /** Allow rules granted in this session, for the policy. */
  sessionRules(): Rule[]
  /** Denies every pending request (shutdown). */
  denyAll(note: string): void
}

/** Rejection of a request whose AbortSignal fired. `name` is 'AbortError', as for fetch. */
export class ConsentAbortedError extends Error {
  constructor(cause: unknown) {
    super('consent request aborted', { cause })
    this.name = 'AbortError'
  }
}

interface Entry {
  request: ConsentRequest
  target: PermissionTarget
  readOnly: boolean
  resolve: (decision: ConsentDecision) => void
  cleanup: () => void
}

const SESSION_SOURCE = 'this session'

export function createConsentBroker(opts: ConsentBrokerOptions): ConsentBroker {
  const { dispatch } = opts
  const now = opts.now ?? Date.now
  let counter = 0
  const newId = opts.newId ?? (() => `consent-${++counter}`)
  const entries = new Map<string, Entry>()
  const rules: Rule[] = []
  const workspace = opts.workspace ?? process.cwd()
  const home = opts.home ?? workspace

  /** Removes a pending request from the broker and the store without settling its promise. */
  function withdraw(id: string): Entry | undefined {
    const entry = entries.get(id)
    if (!entry) return undefined
    entries.delete(id)
    entry.cleanup()
    dispatch({ type: 'consent/resolved', id })
    return entry
  }

  function settle(id: string, decision: ConsentDecision): Entry | undefined {
    const entry = withdraw(id)
    entry?.resolve(decision)
    return entry
  }

  function covers(rule: Rule, entry: Entry): boolean {
    const { request, target } = entry
    if (target.kind === 'none') return request.suggestedRule === rule.text
    if (opts.recheck)
      return opts.recheck({ tool: request.tool, risk: request.risk, target, readOnly: entry.readOnly })
    if (!ruleCoversTool(rule, request.tool)) return false
    // Like the policy: every program must be granted by the rule or only read.
    if (target.kind === 'command')
      return ruleCoversCommand(rule, target.command, 'grant', { readOnlyCounts: true })
    return matchRule(rule, { tool: request.tool, target, workspace, home })
  }

  /** Saves run one after another: each reads the file the previous one wrote. */
  let saving: Promise<void> = Promise.resolve()
  function persist(rule: string): void {
    if (!opts.onAlways) return
    const onAlways = opts.onAlways
    saving = saving
      .then(() => onAlways(rule))
      .then(
        (notice) => {
          if (notice) dispatch({ type: 'notice/added', id: newId(), level: notice.level, text: notice.text })
        },
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err)
          dispatch({
            type: 'notice/added',
            id: newId(),
            level: 'warn',
            text: `could not save rule ${rule}: ${message}`,
          })
        },
      )
  }

  return {
    request(input, signal) {
      if (signal.aborted) return Promise.reject(new ConsentAbortedError(signal.reason))
      if (opts.policy === 'deny-all')
        return Promise.resolve({ kind: 'deny', note: 'no user available (ci mode)', automatic: true })
      const { target, readOnly, ...fields } = input
      const request: ConsentRequest = { ...fields, id: newId(), createdAt: now() }
      return new Promise<ConsentDecision>((resolve, reject) => {
        const onAbort = () => {
          if (withdraw(request.id)) reject(new ConsentAbortedError(signal.reason))
        }
        const seconds = opts.timeoutSeconds ?? 0
        const timer =
          seconds > 0
            ? setTimeout(() => {
                settle(request.id, {
                  kind: 'deny',
                  note: `no answer within ${seconds}s; denied automatically (consentTimeoutSeconds)`,
                  automatic: true,
                })
              }, seconds * 1000)
            : undefined
        signal.addEventListener('abort', onAbort, { once: true })
        entries.set(request.id, {
          request,
          target: target ?? targetFromPreview(input.preview),
          readOnly: readOnly ?? false,
          resolve,
          cleanup: () => {
            if (timer !== undefined) clearTimeout(timer)
            signal.removeEventListener('abort', onAbort)
          },
        })
        dispatch({ type: 'consent/requested', request })
      })
    },

    resolve(id, answer) {
      const entry = settle(id, answer)
      if (!entry) return false
      // A tool that asks once per session (SaveMemory): "allow" is an allow for the session.
      const decision: ConsentDecision =
        answer.kind === 'once' && entry.request.sessionGrant ? { ...answer, kind: 'session' } : answer
      if (decision.kind !== 'session' && decision.kind !== 'always') return true
      // No rule opens it (a protected write, a path only known when it runs): a grant would do nothing.
      if (entry.request.protectedWrite || entry.request.noRule !== undefined) return true
      const text =
        decision.kind === 'session' && decision.scope === 'edits'
          ? entry.request.sessionEditsRule
          : decision.kind === 'always' && decision.scope === 'directory'
            ? entry.request.directoryRule
            : entry.request.suggestedRule
      if (text === undefined) return true
      const source = decision.kind === 'always' ? (opts.alwaysSource ?? SESSION_SOURCE) : SESSION_SOURCE
      const granted: Rule[] = []
      for (const item of splitRuleList(text)) {
        try {
          granted.push(parseRule(item, source))
        } catch (err) {
          dispatch({
            type: 'notice/added',
            id: newId(),
            level: 'warn',
            text: `could not remember ${item}: ${(err as Error).message}`,
          })
        }
      }
      for (const rule of granted) {
        const known = rules.findIndex((r) => r.text === rule.text)
        if (known === -1) rules.push(rule)
        else if (decision.kind === 'always') rules[known] = rule // now saved: say where
        if (decision.kind === 'always') persist(rule.text)
      }
      for (const other of [...entries.values()]) {
        if (granted.some((rule) => covers(rule, other))) settle(other.request.id, { kind: 'once' })
      }
      return true
    },

    pending: () => [...entries.values()].map((e) => e.request),

    sessionRules: () => [...rules],

    denyAll(note) {
      for (const id of [...entries.keys()]) settle(id, { kind: 'deny', note, automatic: true })
    },
  }
}

/** Best-effort target for requests filed without one, so grants can still cover them. */
function targetFromPreview(preview: ConsentPreview): PermissionTarget {
  switch (preview.kind) {
    case 'command':
      return { kind: 'command', command: preview.command }
    case 'diff':
      return { kind: 'path', path: preview.path, access: 'write' }
    case 'diffs':
      return {
        kind: 'paths',
        paths: preview.files.map((f) => ({ kind: 'path', path: f.path, access: 'write' }) as const),
      }
    case 'url':
      return { kind: 'url', url: preview.url }
    default:
      return { kind: 'none' }
  }
}
