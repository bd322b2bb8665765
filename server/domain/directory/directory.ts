import type { FlowConfig, SandboxConfig, SenderConfig, TeamConfig } from './sandbox-config.ts';

/** Who the caller is: a sender (account) and the team it belongs to (docs/api-contract.md §2). */
export interface Caller {
  readonly sender: SenderConfig;
  readonly team: TeamConfig;
}

/** Lookups over the configured teams, senders and flows. */
export class Directory {
  private readonly byKey = new Map<string, Caller>();
  private readonly senders = new Map<string, Caller>();
  private readonly flows = new Map<string, { flow: FlowConfig; team: string }>();

  constructor(readonly config: SandboxConfig) {
    for (const team of config.teams) {
      for (const sender of team.senders) {
        const caller = { sender, team };
        this.senders.set(sender.id, caller);
        if (!sender.revoked) this.byKey.set(sender.apiKey, caller);
      }
    }
    for (const flow of config.flows) {
      const owner = this.senders.get(flow.sender);
      if (owner) this.flows.set(flow.trigger, { flow, team: owner.team.id });
    }
  }

  /** The caller an API key belongs to; undefined for unknown or revoked keys. */
  byApiKey(key: string): Caller | undefined {
    return this.byKey.get(key);
  }

  sender(id: string): Caller | undefined {
    return this.senders.get(id);
  }

  /** A flow by trigger, only if it belongs to the team: other teams' flows do not exist for it. */
  flow(team: string, trigger: string): FlowConfig | undefined {
    const entry = this.flows.get(trigger);
    return entry && entry.team === team ? entry.flow : undefined;
  }

  team(id: string): TeamConfig | undefined {
    return this.config.teams.find((t) => t.id === id);
  }
}
