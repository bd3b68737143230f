/**
 * Common English and Spanish function words, already folded (lowercase, accents removed), that carry no
 * meaning for finding a skill. Dropped from indexed text and from queries by `skill_search` (issue 5
 * point 3; the seed 004 is Spanish, so agents may ask in either language). Domain words that look
 * common ("free", "up", "down", "all") are kept on purpose where they can name what a skill does.
 */
export const STOPWORDS: ReadonlySet<string> = new Set([
  // English
  "a", "about", "after", "again", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before",
  "being", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "during", "each", "else",
  "for", "from", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i",
  "if", "in", "into", "is", "it", "its", "itself", "just", "may", "me", "might", "mine", "more", "most",
  "must", "my", "no", "nor", "not", "of", "on", "once", "only", "or", "other", "our", "ours", "own",
  "please", "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the", "their",
  "theirs", "them", "then", "there", "these", "they", "this", "those", "through", "to", "too", "very",
  "via", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
  "with", "would", "you", "your", "yours",
  // Spanish (folded: "más" → "mas", "él" → "el")
  "al", "algo", "algun", "alguna", "algunas", "alguno", "algunos", "ante", "antes", "aqui", "asi",
  "cada", "como", "con", "contra", "cual", "cuales", "cuando", "de", "del", "desde", "donde", "durante",
  "e", "el", "ella", "ellas", "ello", "ellos", "en", "entre", "era", "eres", "es", "esa", "esas", "ese",
  "eso", "esos", "esta", "estan", "estas", "este", "esto", "estos", "fue", "ha", "han", "hasta", "hay",
  "la", "las", "le", "les", "lo", "los", "mas", "mi", "mis", "mismo", "mucho", "muchos", "muy", "ni",
  "nos", "nosotros", "nuestra", "nuestro", "o", "os", "otra", "otras", "otro", "otros", "para", "pero",
  "poco", "por", "porque", "que", "quien", "quienes", "se", "sea", "segun", "ser", "si", "sin", "sobre",
  "son", "su", "sus", "tambien", "tanto", "te", "ti", "tu", "tus", "un", "una", "unas", "uno", "unos",
  "usted", "ustedes", "vosotros", "y", "ya", "yo",
]);
