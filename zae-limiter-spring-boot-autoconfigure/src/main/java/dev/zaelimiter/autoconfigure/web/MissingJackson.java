package dev.zaelimiter.autoconfigure.web;

/** The failure of a filter that would write its problem bodies in an application without Jackson. */
final class MissingJackson {

    private MissingJackson() {
    }

    /** Advises adding {@code artifact}, which {@code broughtBy} brings along. */
    static IllegalStateException exception(String artifact, String broughtBy) {
        return new IllegalStateException("zae.limiter.web.rules are declared, and the rate limit filter writes its"
                + " problem+json bodies with Jackson, which is not on the classpath: add " + artifact + " ("
                + broughtBy + " brings it), or give the filter a problem writer of your own");
    }
}
