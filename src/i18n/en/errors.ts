// Area: errors. Filled as its strings move here.

export const errors = {};
