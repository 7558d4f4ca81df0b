/* namematch: a deterministic judge of whether two spellings are the same Indian name
 * ("Laxmi" / "Lakshmi" / "लक्ष्मी": same; "Sunita" / "Sumita": different), offline. Used
 * for the form-completion scoring of open fields, the annotation work and the
 * `name-match` command; the offline extractor uses its phonetic key to match options.
 *
 * Each word becomes a phonetic key: Devanagari is transliterated to Latin letters
 * (inherent vowel written, virama and matras honoured, anusvara as n), then spelling
 * variants that Hindi names are written with are folded: h after a consonant
 * (aspiration: th/t, sh/s, ph/p, bh/b), f/p, c/k/q, z/j, v/w/b, ks/ksh/x, a leading y/j,
 * long vowels (ee/i, oo/u, aa/a), ai/ae/aye as e, au/ou as o, iy before a vowel as i, a
 * final y, -ie or -ey after a consonant as i (Rinky, Rinkie, Pinkey / Pinki; a final -ey
 * also matches e: Pandey / पांडे), a final -er as -r (Dharmender/Dharmendra), ng before a
 * consonant as n, m before p/b as n, every a after the first letter (schwa: Sarla/Sarala,
 * Mamta/Mamata), doubled letters. */
#ifndef FORMDESK_NAMEMATCH_H
#define FORMDESK_NAMEMATCH_H

#include <stddef.h>

enum namematch_verdict {
	NAMEMATCH_DIFFERENT,
	NAMEMATCH_SAME,
	NAMEMATCH_UNSURE, /* ask the caller (or a person) */
};

/* namematch_judge: compare names a and b (UTF-8, any script, any words; NULL is ""). The
 * rule, on the words' phonetic keys in order:
 * - same: the keys are equal word for word, or the words run together are equal
 *   ("Sitadevi" / "Sita Devi"), or a word differs only by an o or u in its last
 *   syllable where the other has a short a (Kiron / Kiran, Mohun / Mohan: Bengali and
 *   English spellings), by the short i of a final -ila / -ika said or dropped (Urmila /
 *   Urmla, Priyanka / Priyanika: spoken Hindi drops it) or a final -ya written -ia
 *   (Divya / Divia; Aditya / Aditi stay apart), or by e / o written for i / u in
 *   a middle syllable, neither the first nor the last (Manisha / Manesha, Anuradha /
 *   Anoradha, Devendra / Devindra);
 * - unsure: the keys differ only by a v/w or y glide after a consonant (Sapna / Swapna),
 *   an e for a short a (Mohammed / Mohammad), a short i against a short a inside the
 *   word after its first syllable (Rukmini / Rukmani), an h written in another place
 *   (Jahnavi / Jhanvi), or one name's words are all in the other, which has more
 *   (Sunita / Sunita Devi), or a name has no letters;
 * - different: anything else (Sunita / Sumita, Priya / Piya), among them two names whose
 *   first-syllable vowel differs (Sumit / Samit, Kiran / Karan, Rohan / Rehan).
 * Known to be judged same though two names: Kamla / Kamila (the -ila rule).
 * Pure: no allocation that can fail is reported; on allocation failure it says unsure. */
enum namematch_verdict namematch_judge(const char *a, const char *b);

/* namematch_verdict_name: "same", "different" or "unsure"; a static string. */
const char *namematch_verdict_name(enum namematch_verdict v);

/* namematch_key: the phonetic key of one word (UTF-8, len bytes; Latin or Devanagari,
 * folded or not) into buf (size bytes, NUL-terminated, truncated to fit). Returns the
 * key's length; 0 when the word has no letters. */
size_t namematch_key(const char *word, size_t len, char *buf, size_t size);

/* namematch_latin: name (UTF-8, Latin or Devanagari) in Latin letters, as the judge reads
 * it: Devanagari transliterated by the table of namematch_key (inherent vowel written,
 * virama and matras honoured), Latin lowercased without accents; each word with a capital
 * first letter, words apart by one space, digits dropped. Output into buf (size bytes,
 * NUL-terminated, truncated to fit). Returns the length; 0 when there are no letters. */
size_t namematch_latin(const char *name, char *buf, size_t size);
/* namematch_devanagari: name written in Devanagari, read as namematch_latin writes it
 * (Hunterian letters, letter for letter: a Latin spelling writes no long vowel inside a
 * word, so Sunita is सुनिता and Ram रम; a name's final a and i long, as in अनिता, देवी;
 * dental t, d, n; x as क्ष): a reading aid for a person, not a spelling anyone registered. Output into buf (size
 * bytes, NUL-terminated, truncated to fit). Returns the length. */
size_t namematch_devanagari(const char *name, char *buf, size_t size);

#endif
