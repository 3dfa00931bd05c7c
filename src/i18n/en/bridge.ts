// Area: bridge. Filled as its strings move here.

export const bridge = {};
