// Which rule decides an object's health: the flag's rules win over the package's, and within
// each a rule for the exact apiVersion wins over one for the whole group.

import { groupOf } from "../model/ref.js";
import type { HealthRule, HealthRuleLookup } from "../status/types.js";
import { matchKey, type CompiledRule } from "./parse-health-rules.js";

export class HealthRuleSet implements HealthRuleLookup {
  private readonly layers: ReadonlyMap<string, CompiledRule>[];

  /** `layers`: highest precedence first (the flag's rules, then the package's). */
  constructor(layers: readonly (readonly CompiledRule[])[]) {
    this.layers = layers.map((rules) => new Map(rules.map((r) => [matchKey(r), r])));
  }

  get size(): number {
    return this.layers.reduce((n, l) => n + l.size, 0);
  }

  find(apiVersion: string, kind: string): HealthRule | undefined {
    const exact = matchKey({ kind, match: { apiVersion } });
    const group = matchKey({ kind, match: { group: groupOf(apiVersion) } });
    for (const layer of this.layers) {
      const r = layer.get(exact) ?? layer.get(group);
      if (r) return r;
    }
    return undefined;
  }
}
