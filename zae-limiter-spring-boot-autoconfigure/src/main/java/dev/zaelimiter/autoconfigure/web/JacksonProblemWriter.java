package dev.zaelimiter.autoconfigure.web;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;

import java.io.UncheckedIOException;
import java.util.function.Function;

/**
 * Writes a {@link ProblemDetail} with a Jackson 2 {@link ObjectMapper}, normally the application's, so that the
 * filter's bodies look like the ones Spring writes. Loaded only when Jackson 2 is present.
 */
final class JacksonProblemWriter implements Function<ProblemDetail, byte[]> {

    private final ObjectMapper mapper;

    JacksonProblemWriter(ObjectMapper mapper) {
        // Spring Boot's ObjectMapper has the mixin that puts extension members at the top level; a plain one does not
        this.mapper = mapper.findMixInClassFor(ProblemDetail.class) != null ? mapper
                : mapper.copy().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class);
    }

    @Override
    public byte[] apply(ProblemDetail problem) {
        try {
            return mapper.writeValueAsBytes(problem);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A writer with the application's ObjectMapper when there is one, else a plain one. */
    static JacksonProblemWriter of(BeanFactory beanFactory) {
        return new JacksonProblemWriter(beanFactory.getBeanProvider(ObjectMapper.class).getIfAvailable(ObjectMapper::new));
    }
}
