// Area: tools. Filled as its strings move here.

export const tools = {};
