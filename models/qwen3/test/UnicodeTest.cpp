//===- UnicodeTest.cpp - UTF-8 validation, NFC, streaming decode ----------===//

#include "qwen3/Unicode.h"

#include <gtest/gtest.h>

using namespace qwen3;

TEST(Unicode, ValidatesUtf8) {
  EXPECT_TRUE(isValidUtf8("plain ascii"));
  EXPECT_TRUE(isValidUtf8("caf\xC3\xA9 \xE4\xBD\xA0 \xF0\x9F\x98\x80"));
  EXPECT_FALSE(isValidUtf8("\xC3"));             // truncated
  EXPECT_FALSE(isValidUtf8("\xC0\xAF"));         // overlong
  EXPECT_FALSE(isValidUtf8("\xED\xA0\x80"));     // surrogate
  EXPECT_FALSE(isValidUtf8("\xF4\x90\x80\x80")); // past U+10FFFF
  EXPECT_FALSE(isValidUtf8("\xFF"));
}

TEST(Unicode, NfcComposes) {
  // e + COMBINING ACUTE -> U+00E9.
  EXPECT_EQ(toNfc("caf" "e\xCC\x81"), "caf\xC3\xA9");
  // Already composed text is unchanged.
  EXPECT_EQ(toNfc("caf\xC3\xA9"), "caf\xC3\xA9");
  // Singleton: ANGSTROM SIGN U+212B -> U+00C5.
  EXPECT_EQ(toNfc("\xE2\x84\xAB"), "\xC3\x85");
  // Canonical ordering: a + dot below (220) + acute (230), given in the other
  // order, composes to U+1EA1 (a with dot below) + acute.
  EXPECT_EQ(toNfc("a\xCC\x81\xCC\xA3"), "\xE1\xBA\xA1\xCC\x81");
  // Hangul jamo L V T -> one syllable (U+D55C).
  EXPECT_EQ(toNfc("\xE1\x84\x92\xE1\x85\xA1\xE1\x86\xAB"), "\xED\x95\x9C");
  // A composition exclusion stays decomposed: U+0958 -> U+0915 U+093C.
  EXPECT_EQ(toNfc("\xE0\xA5\x98"), "\xE0\xA4\x95\xE0\xA4\xBC");
  // A leading combining mark has nothing to compose with.
  EXPECT_EQ(toNfc("\xCC\x81" "a"), "\xCC\x81" "a");
}

TEST(Unicode, StreamHoldsIncompleteSequences) {
  Utf8Stream s;
  // U+1F600 arrives one byte at a time.
  EXPECT_EQ(s.feed("a\xF0"), "a");
  EXPECT_EQ(s.feed("\x9F"), "");
  EXPECT_EQ(s.feed("\x98"), "");
  EXPECT_EQ(s.feed("\x80!"), "\xF0\x9F\x98\x80!");
  EXPECT_EQ(s.finish(), "");
  // Invalid bytes become U+FFFD; a dangling lead byte at the end too.
  EXPECT_EQ(s.feed("x\xFFy\xE4\xBD"), "x\xEF\xBF\xBDy");
  EXPECT_EQ(s.finish(), "\xEF\xBF\xBD");
  // A lead byte followed by a non-continuation is invalid at once.
  EXPECT_EQ(s.feed("\xE4z"), "\xEF\xBF\xBDz");
}
