package dev.zaelimiter;

import dev.zaelimiter.internal.Arguments;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads an HTTP {@code Retry-After} value as RFC 9110 (section 10.2.3) asks a recipient to: delta-seconds, or an
 * HTTP-date in any of the three formats of section 5.6.7 (IMF-fixdate, the obsolete RFC 850 form and ANSI C's
 * asctime). A delta-seconds too large to represent counts as {@link #MAX_DELTA_SECONDS}, as RFC 9111 section 1.2.2
 * asks of caches. Every input gives a duration (zero or negative when the date has passed) or a
 * {@link ValidationException}; nothing else is thrown. {@link RateLimiter#pauseFromRetryAfter} reads the header with it;
 * so can a caller that decides the pause itself (the Spring outbound clients cut it to a maximum first).
 */
public final class RetryAfter {

    /** 2^31 seconds (about 68 years): what a delta-seconds too large to represent stands for. */
    public static final long MAX_DELTA_SECONDS = 2_147_483_648L;

    private static final List<String> MONTHS = List.of("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug",
            "sep", "oct", "nov", "dec");
    private static final String TIME = "(\\d{2}):(\\d{2}):(\\d{2})";
    /**
     * {@code Sun, 06 Nov 1994 08:49:37 GMT}; a one-digit day is read too, as Java's RFC_1123_DATE_TIME and other
     * RFC 1123 senders write it.
     */
    private static final Pattern IMF_FIXDATE = Pattern.compile(
            "(?i)(?:mon|tue|wed|thu|fri|sat|sun), (\\d{1,2}) ([a-z]{3}) (\\d{4}) " + TIME + " GMT");
    /** {@code Sunday, 06-Nov-94 08:49:37 GMT} */
    private static final Pattern RFC_850 = Pattern.compile(
            "(?i)(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday), (\\d{2})-([a-z]{3})-(\\d{2}) "
                    + TIME + " GMT");
    /** {@code Sun Nov  6 08:49:37 1994} */
    private static final Pattern ASCTIME = Pattern.compile(
            "(?i)(?:mon|tue|wed|thu|fri|sat|sun) ([a-z]{3}) ([ \\d]\\d) " + TIME + " (\\d{4})");

    private RetryAfter() {
    }

    /**
     * The wait {@code value} asks for, seen at {@code now}.
     *
     * @throws ValidationException when {@code value} is neither delta-seconds nor an HTTP-date
     */
    public static Duration parse(String value, Instant now) {
        Arguments.required("now", now);
        String v = value == null ? "" : value.trim();
        if (!v.isEmpty() && v.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return Duration.ofSeconds(deltaSeconds(v));
        }
        Instant at = date(v, now);
        if (at == null) {
            throw new ValidationException("retryAfter", value, "a Retry-After value is a number of seconds or an"
                    + " HTTP date such as 'Wed, 21 Oct 2026 07:28:00 GMT' (IMF-fixdate, RFC 850 or asctime)");
        }
        return Duration.between(now, at);
    }

    private static long deltaSeconds(String digits) {
        String significant = digits.replaceFirst("^0+(?=.)", "");
        if (significant.length() > 10) {
            return MAX_DELTA_SECONDS;
        }
        return Math.min(Long.parseLong(significant), MAX_DELTA_SECONDS);
    }

    private static Instant date(String v, Instant now) {
        Matcher m = IMF_FIXDATE.matcher(v);
        if (m.matches()) {
            return instant(Integer.parseInt(m.group(3)), m.group(2), m.group(1), m, 4);
        }
        m = RFC_850.matcher(v);
        if (m.matches()) {
            return instant(fullYear(Integer.parseInt(m.group(3)), now), m.group(2), m.group(1), m, 4);
        }
        m = ASCTIME.matcher(v);
        if (m.matches()) {
            return instant(Integer.parseInt(m.group(6)), m.group(1), m.group(2).trim(), m, 3);
        }
        return null;
    }

    /**
     * RFC 9110: a two-digit year that would be more than 50 years in the future is the most recent past year with
     * the same last two digits.
     */
    private static int fullYear(int twoDigits, Instant now) {
        int thisYear = now.atOffset(ZoneOffset.UTC).getYear();
        int year = thisYear - Math.floorMod(thisYear, 100) + twoDigits;
        return year > thisYear + 50 ? year - 100 : year;
    }

    private static Instant instant(int year, String month, String day, Matcher m, int timeGroup) {
        int monthIndex = MONTHS.indexOf(month.toLowerCase(Locale.ROOT));
        if (monthIndex < 0) {
            return null;
        }
        try {
            return LocalDateTime.of(year, monthIndex + 1, Integer.parseInt(day),
                    Integer.parseInt(m.group(timeGroup)), Integer.parseInt(m.group(timeGroup + 1)),
                    Integer.parseInt(m.group(timeGroup + 2))).toInstant(ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return null;
        }
    }
}
