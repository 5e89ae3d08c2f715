/** The Sous release this build reports on /status and `sous --version`. Keep in step with package.json. */
export const SOUS_VERSION = '0.1.0';
