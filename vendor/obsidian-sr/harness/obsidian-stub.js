// The few names the plugin's parser imports from the "obsidian" module, outside Obsidian.
var moment = require("moment");
var Notice = class {
  constructor(_m) {
  }
};
var PluginSettingTab = class {
};
var TFile = class {
};
var Platform = { isMobile: false, isDesktop: true };
function getAllTags(cache) {
  const out = cache && cache.tags ? cache.tags.map((t) => t.tag) : [];
  return out;
}
module.exports = { moment: moment, Notice, PluginSettingTab, TFile: TFile, Platform, getAllTags };
