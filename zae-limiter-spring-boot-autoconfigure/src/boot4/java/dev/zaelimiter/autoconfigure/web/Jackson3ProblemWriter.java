package dev.zaelimiter.autoconfigure.web;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import tools.jackson.databind.json.JsonMapper;

import java.util.function.Function;

/**
 * Writes a {@link ProblemDetail} with a Jackson 3 {@link JsonMapper}, normally the application's, so that the
 * filter's bodies look like the ones Spring writes. Loaded only when Jackson 3 is present.
 */
final class Jackson3ProblemWriter implements Function<ProblemDetail, byte[]> {

    private final JsonMapper mapper;

    Jackson3ProblemWriter(JsonMapper mapper) {
        // Spring's converters add the mixin that puts extension members at the top level; a plain mapper lacks it
        this.mapper = mapper.serializationConfig().findMixInClassFor(ProblemDetail.class) != null ? mapper
                : mapper.rebuild().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class).build();
    }

    @Override
    public byte[] apply(ProblemDetail problem) {
        return mapper.writeValueAsBytes(problem);
    }

    /** A writer with the application's JsonMapper when there is one, else a plain one. */
    static Jackson3ProblemWriter of(BeanFactory beanFactory) {
        return new Jackson3ProblemWriter(beanFactory.getBeanProvider(JsonMapper.class).getIfAvailable(JsonMapper::new));
    }
}
