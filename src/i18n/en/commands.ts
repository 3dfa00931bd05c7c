// Area: commands. Filled as its strings move here.

export const commands = {};
