/** What resolving one import gives: the repository files it names, an external package, or why neither. */
export type Resolution =
  | { readonly status: 'resolved'; readonly targets: readonly string[]; readonly via: ResolvedVia }
  | { readonly status: 'external'; readonly package: string }
  | { readonly status: 'unresolved'; readonly reason: string };

export type ResolvedVia = 'relative' | 'tsconfig-paths' | 'base-url' | 'workspace' | 'python-relative' | 'python-absolute';
