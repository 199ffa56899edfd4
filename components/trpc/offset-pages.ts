// Paging options for the infinite queries whose cursor is an offset and whose pages say where the
// next one starts (deltas, versions): shared by the server prefetch and the client query.
export const OFFSET_PAGES = {
  initialCursor: 0,
  getNextPageParam: (page: { nextCursor: number | null }) => page.nextCursor ?? undefined,
} as const;
