import type { CommandAnalysis } from './command-analysis.js'
import type { GitConfigFacts } from './git-read-only.js'
import type { SandboxView } from './sandbox-fence.js'

/**
 * What a tool call touches, as the permission policy sees it. Tools build targets from their arguments
 * (lexical absolute paths); the permission gate fills in `real` (symlinks resolved) before the policy
 * judges, so the policy stays pure and judges where a write or read really lands.
 */
export type PermissionTarget =
  | { kind: 'none' }
  | {
      kind: 'command'
      command: string
      /** Directory the command starts in; relative path arguments resolve against it. */
      cwd?: string
      /** Real path of every lexical path the command names (see `commandLookups`). */
      real?: Readonly<Record<string, string>>
      /**
       * The command's one analysis (split, wrappers peeled, paths located), made by the gate when it
       * resolves the target; the classifier, the policy and the rule suggestion read it instead of parsing
       * the command again.
       */
      analysis?: CommandAnalysis
      /**
       * Present when the command will run inside the OS sandbox: what it may write there. The policy no
       * longer asks about writes the sandbox refuses by itself, and auto mode runs the command unasked.
       */
      sandbox?: SandboxView
      /** What git would read in each directory a read-only git call of the command runs in (git-config-scan.ts). */
      gitConfig?: Readonly<Record<string, GitConfigFacts>>
    }
  | {
      kind: 'path'
      /** Absolute lexical path (`~` expanded, `..` folded, symlinks not resolved). */
      path: string
      access: 'read' | 'write'
      /** The path with symlinks resolved (of its nearest existing parent for a new file). */
      real?: string
      /**
       * The call acts on the name itself, not on what a symlink there points to (a delete removes the
       * link): `real` is then the real path of its folder plus its own name.
       */
      noFollow?: true
    }
  | {
      /** Several files one call changes (apply_patch): every one is judged, and all must be allowed. */
      kind: 'paths'
      paths: readonly PathTarget[]
    }
  | {
      kind: 'url'
      url: string
      /**
       * The addresses the host resolved to, when the tool resolved it before asking: the policy judges
       * these (not the name), and the tool connects only to them.
       */
      addresses?: readonly string[]
    }

export type PathTarget = Extract<PermissionTarget, { kind: 'path' }>
export type CommandTarget = Extract<PermissionTarget, { kind: 'command' }>
