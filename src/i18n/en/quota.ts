// Area: quota. Filled as its strings move here.

export const quota = {};
