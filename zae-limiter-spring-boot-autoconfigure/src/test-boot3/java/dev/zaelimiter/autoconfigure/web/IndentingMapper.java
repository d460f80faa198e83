package dev.zaelimiter.autoconfigure.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** An application JSON mapper of Spring Boot 3.5's kind (Jackson 2) that indents its output. */
@Configuration(proxyBeanMethods = false)
class IndentingMapper {

    @Bean
    ObjectMapper objectMapper() {
        return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    }
}
